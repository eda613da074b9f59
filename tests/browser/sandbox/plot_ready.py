"""The start the plot-ready snapshot's tests share: the page keeps the snapshot's files."""

# Statements for the top of an async page function: the page's spare (booted from the base
# snapshot) preloads matplotlib once the page is quiet and keeps the plot-ready snapshot's files;
# the function returns { kept: false } if they are not kept within 90 s. Then the pool is cooled
# down, so the next spare boots from them.
KEEP_PLOT_SNAPSHOT = """
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const kept = () => performance.getEntriesByName("wasmbox:plot-snapshot-kept").length > 0;
  await wasmbox.Sandbox.warmup();
  const until = performance.now() + 90000;
  while (!kept() && performance.now() < until) await sleep(100);
  if (!kept()) return { kept: false };
  wasmbox.Sandbox.cooldown();
"""
