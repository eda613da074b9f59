"""Persisted-session rows of `make bench-sandbox` (issue 13): W10, what saving after a small run
costs (the run's own result should not wait for it); W11, resuming a session that holds a 50 MB
DataFrame and 20 MB of files, to its first result, on a later visit (the visit that saved it has
kept the package snapshot's files; the row before says when), and on a first resume whose saving
visit was closed before that (the files read from the server). Figures only, no asserts."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from tests.bench.stats import summary
from tests.support.engines import EngineBrowser, EnginePage

# The package snapshot's three files in the page's decoded-file store (its origin-private file
# system, or CacheStorage where it cannot write one: sdk/runtime-store.ts). The visit that saves a
# numpy or pandas session keeps them once idle (sdk/start-snapshot.ts), so a later visit's resume
# reads them there; without them it reads 125 MB from the server (HTTP cache or loopback).
SNAPSHOT_KEYS = """async (forget) => {
  const manifest = await (await fetch(new URL("/runtime/manifest.json", location.href))).json();
  const entry = manifest.packageSnapshot;
  if (!entry) return null;
  const names = [entry.file, entry.record, entry.bundle];
  const store = await caches.open("wasmbox-runtime");
  const ours = (await store.keys()).filter((request) =>
    names.some((f) => request.url.includes(`/runtime/${f}?`)));
  if (forget) for (const request of ours) await store.delete(request);
  let count = ours.length;
  let root = null;
  try {
    root = await (await navigator.storage.getDirectory()).getDirectoryHandle("wasmbox-runtime");
  } catch {
    return count;
  }
  for await (const runtime of root.values())
    for await (const file of runtime.values()) {
      if (!names.includes(file.name)) continue;
      for await (const kept of file.values()) if ((await kept.getFile()).size > 0) count++;
      // A writer or reader of the page may still hold it for a moment (Chromium refuses then).
      for (let tries = 0; forget; tries++) {
        try {
          await runtime.removeEntry(file.name, { recursive: true });
          break;
        } catch (error) {
          if (tries === 40) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    }
  return count;
}"""
# A small run's result on a persisted sandbox, after its previous save has finished; then how long
# the save it starts takes (execute → flush), and a run sent straight after another (it waits for
# the save between them, which is on the sandbox's queue).
W10 = (
    """async (runs) => {
  const snapshotKeys = """
    + SNAPSHOT_KEYS
    + """;
  const sb = await wasmbox.Sandbox.create({ persist: true });
  await sb.execute("import numpy as np; xs = np.arange(1000); total = 0");
  await sb.flush();
  // Once per device, after a numpy session's first save, the page keeps the package snapshot's
  // files in the background: timed apart, not inside the saves below.
  const t0 = performance.now();
  let keep = "not within 60 s";
  while (performance.now() - t0 < 60000) {
    const count = await snapshotKeys(false);
    if (count === null) {
      keep = "no package snapshot in this build";
      break;
    }
    if (count === 3) {
      keep = `${Math.round(performance.now() - t0)} ms after it (in the background)`;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const result = [], save = [], backToBack = [];
  for (let i = 0; i < runs; i++) {
    let t = performance.now();
    await sb.execute("total += 1");
    result.push(performance.now() - t);
    await sb.flush();
    save.push(performance.now() - t - result[i]);
    await sb.execute("total += 1");
    t = performance.now();
    await sb.execute("total += 1");
    backToBack.push(performance.now() - t);
    await sb.flush();
  }
  await wasmbox.Sandbox.delete(sb.id);
  return { result, save, backToBack, keep };
}"""
)

W11_SETUP = """async () => {
  const sb = await wasmbox.Sandbox.create({ persist: true, timeoutMs: 120000 });
  const r = await sb.execute(
    "import numpy as np, pandas as pd\\n" +
    "df = pd.DataFrame(np.random.default_rng(0).random((655_360, 10)))\\n" +
    "int(df.memory_usage().sum())");
  if (r.outcome !== "OUTCOME_OK") throw new Error(`W11 set-up failed: ${JSON.stringify(r.error)}`);
  const chunk = new Uint8Array(10 * 1024 * 1024).fill(7);
  await sb.writeFile("a.bin", chunk);
  await sb.writeFile("b.bin", chunk);
  await sb.flush();
  await sb.close();
  const entry = wasmbox.Sandbox.list().find((e) => e.id === sb.id);
  return { id: sb.id, frameBytes: Number(r.value["text/plain"]), bytes: entry.bytes };
}"""

# From `Sandbox.resume` to the first result that uses the restored DataFrame and a file.
W11_RESUME = """async (id) => {
  const t0 = performance.now();
  const sb = await wasmbox.Sandbox.resume(id);
  const r = await sb.execute("df.shape, len(open('a.bin', 'rb').read())");
  const t1 = performance.now();
  await sb.close({ save: false });
  const at = (name) =>
    performance.getEntriesByName(`wasmbox:resume:${name}`).at(-1)?.startTime ?? NaN;
  const worker = (name) =>
    performance.getEntriesByName(`wasmbox:worker:state:${name}`).at(-1)?.startTime ?? NaN;
  const boot = (name) =>
    performance.getEntriesByName(`wasmbox:worker:${name}`).at(-1)?.startTime ?? NaN;
  const steps = {
    read: at("read") - at("start"),
    engine: at("engine") - at("start"),
    files: at("files") - at("engine"),
    packages: worker("packages") - at("files"),
    imports: worker("imported") - worker("packages"),
    unpickle: worker("unpickled") - worker("imported"),
    reply: at("state") - worker("unpickled"),
    run: t1 - at("state"),
    // A worker booted from the package snapshot (sandbox/package-snapshot.ts), from resume:start.
    workerStarted: boot("worker-started") - at("start"),
    instantiate: boot("instantiate") - at("start"),
    snapshotReceived: boot("package-snapshot-received") - at("start"),
    filesReceived: boot("package-files-received") - at("start"),
    modulesCompiling: boot("package-modules-compiling") - at("start"),
    modulesCompiled: boot("package-modules-compiled") - at("start"),
    modulesLinked: boot("package-modules-linked") - at("start"),
    filesWritten: boot("package-files-written") - at("start"),
    pyodideBooted: boot("pyodide-booted") - at("start"),
  };
  return { resume: t1 - t0, sinceNavigation: t1, value: r.value["text/plain"], steps };
}"""

# The same resume on a page that has been open a while with a warm spare that preloaded numpy
# and pandas (as the app's spare does): waits until that spare has imported both (at most 20 s;
# a build without the `preloaded` message waits the 20 s), then times as W11_RESUME.
W11_WARM_SPARE_RESUME = (
    """async (id) => {
  await wasmbox.Sandbox.warmup({ packages: ["numpy", "pandas"] });
  const preloaded = () => performance.getEntriesByName("wasmbox:worker:preloaded").length;
  const t = performance.now();
  while (preloaded() < 2 && performance.now() - t < 20000)
    await new Promise((r) => setTimeout(r, 100));
  const waited = performance.now() - t;
  const resumed = await ("""
    + W11_RESUME
    + """)(id);
  const intoSpare = performance.getEntriesByName("wasmbox:spare-claimed-with-packages").length > 0;
  return { ...resumed, waited, intoSpare };
}"""
)

KEEP_TIMEOUT_S = 60


def kept_after(page: EnginePage) -> str:
    """How long after the session's save the page held the package snapshot's three files."""
    started = time.monotonic()
    while time.monotonic() - started < KEEP_TIMEOUT_S:
        count = page.evaluate(SNAPSHOT_KEYS, False)
        if count is None:
            return "no package snapshot in this build"
        if count == 3:
            return f"after {time.monotonic() - started:.1f} s"
        time.sleep(0.2)
    return f"not within {KEEP_TIMEOUT_S} s"


STEPS = {
    "read": "read from IndexedDB (beside the worker's start)",
    "engine": "a started worker (cold after a reload)",
    "files": "files written into the worker",
    "packages": "the saved packages loaded (after the files)",
    "imports": "their modules imported",
    "unpickle": "variables unpickled",
    "reply": "the restore's reply back to the page",
    "run": "the first run",
    "workerStarted": "the worker's script running (from the start)",
    "instantiate": "Pyodide's wasm instantiated from here (from the start)",
    "snapshotReceived": "package snapshot: its bytes in the worker (from the start)",
    "filesReceived": "package snapshot: its files bundle in the worker (from the start)",
    "modulesCompiling": "package snapshot: side modules' compile started (from the start)",
    "modulesCompiled": "package snapshot: side modules compiled (from the start)",
    "modulesLinked": "package snapshot: side modules linked (from the start)",
    "filesWritten": "package snapshot: its files placed (from the start)",
    "pyodideBooted": "Pyodide booted (from the start)",
}


def step_summary(values: list[float | None]) -> str:
    """A step's figures; a run that lacks one of the step's marks gives NaN in the page, which
    arrives as None (JSON), and is counted instead of breaking the row's formatting."""
    present = [v for v in values if v is not None]
    missing = len(values) - len(present)
    text = summary(present) if present else "n/a"
    return text + (f"  ({missing} of {len(values)} runs without its marks)" if missing else "")


def w10(page: EnginePage, w2_median: float, runs: int, row: Callable[[str, str], None]) -> None:
    figures = page.evaluate(W10, runs)
    result, save = figures["result"], figures["save"]
    share = statistics.median(result) / w2_median if w2_median else float("nan")
    row("W10 persisted small run: its result", summary(result) + f"  ({share:.2f} x W2)")
    save_share = statistics.median(save) / w2_median if w2_median else float("nan")
    row(
        "W10 the save after it (off the result's path)",
        summary(save) + f"  ({save_share:.1f} x W2)",
    )
    row("W10 a run sent right after another (waits for the save)", summary(figures["backToBack"]))
    row("W10 once per device: the package snapshot kept after the first save", figures["keep"])


def w11_warm_spare(
    pages: dict[str, EnginePage],
    builds: dict[str, str],
    ids: dict[str, str],
    runs: int,
    visit: Callable[[EnginePage, str], EnginePage],
    row: Callable[[str, str], None],
) -> None:
    """W11 on a page whose warm spare has preloaded numpy and pandas, alternating builds."""
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
    for run in range(runs):
        order = list(builds) if run % 2 == 0 else list(reversed(builds))
        for name in order:
            visit(pages[name], builds[name])
            samples[name].append(pages[name].evaluate(W11_WARM_SPARE_RESUME, ids[name]))
    medians = {}
    for name, got in samples.items():
        medians[name] = statistics.median(s["resume"] for s in got)
        into = sum(1 for s in got if s["intoSpare"])
        waited = statistics.median(s["waited"] for s in got)
        row(
            f"W11 resume, warm spare with numpy+pandas ({name})",
            summary([s["resume"] for s in got])
            + f"  into the spare {into}/{len(got)}; waited {waited:.0f} ms for its preload",
        )
        if name == "this build":
            for step in (
                "read",
                "engine",
                "files",
                "packages",
                "imports",
                "unpickle",
                "reply",
                "run",
            ):
                label = f"W11   warm spare: {STEPS[step]}"
                row(label, step_summary([s["steps"][step] for s in got]))
    if "baseline" in medians:
        ratio = medians["this build"] / medians["baseline"]
        row("W11   warm spare, this/baseline (medians)", f"{ratio:8.2f}x")
    averages = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    row("load after the warm-spare rows", f"load average {averages}")


def w11(
    browser: EngineBrowser,
    url: str,
    runs: int,
    visit: Callable[[EnginePage, str], EnginePage],
    row: Callable[[str, str], None],
    baseline: str | None = None,
) -> None:
    """W11 on this build; with `baseline` (another build's server) too, alternating resumes so
    both see the same load (only this build's steps are split: an older build may lack marks)."""
    builds = {"this build": url, **({"baseline": baseline} if baseline else {})}
    pages = {name: visit(browser.new_page(), u) for name, u in builds.items()}
    setups = {name: page.evaluate(W11_SETUP) for name, page in pages.items()}
    ids = {name: setup["id"] for name, setup in setups.items()}
    setup = setups["this build"]
    row(
        "W11 session saved",
        f"DataFrame {setup['frameBytes'] / 1e6:.1f} MB + files 21.0 MB, "
        f"stored {setup['bytes'] / 1e6:.1f} MB",
    )
    # A resume is a later visit's: the visit that saved the session has had its idle time.
    for name, page in pages.items():
        row(f"W11 package snapshot kept by the saving visit ({name})", kept_after(page))
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
    for run in range(runs):
        order = list(builds) if run % 2 == 0 else list(reversed(builds))
        for name in order:
            visit(pages[name], builds[name])  # a reload: same storage, a new document
            samples[name].append(pages[name].evaluate(W11_RESUME, ids[name]))
    ours = samples["this build"]
    row("W11 resume to the first result", summary([s["resume"] for s in ours]))
    # Where it goes (wasmbox:resume:* marks): the blobs are read while the worker is claimed.
    for step, label in STEPS.items():
        row(f"W11   {label}", step_summary([s["steps"][step] for s in ours]))
    row(
        "W11 same, from navigation start",
        summary([s["sinceNavigation"] for s in ours]) + f"  value={ours[0]['value']}",
    )
    w11_warm_spare(pages, builds, ids, runs, visit, row)
    # The first resume on a device whose saving visit was closed before it had kept the files.
    cold = []
    for _ in range(max(1, runs // 2)):
        pages["this build"].evaluate(SNAPSHOT_KEYS, True)
        visit(pages["this build"], url)
        cold.append(pages["this build"].evaluate(W11_RESUME, ids["this build"])["resume"])
    row("W11 resume, package snapshot not kept (read from the server)", summary(cold))
    if baseline:
        theirs = [s["resume"] for s in samples["baseline"]]
        ratio = statistics.median([s["resume"] for s in ours]) / statistics.median(theirs)
        row(
            "W11 resume, baseline build (alternating)",
            summary(theirs) + f"  (this/baseline {ratio:.2f})",
        )
    for name, page in pages.items():
        page.evaluate("id => wasmbox.Sandbox.delete(id)", ids[name])
        page.close()
