"""`Sandbox.warmup({packages})`: spares load and import packages while idle."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.sandbox.conftest import SDK_PAGE

# Deadlines and graces in wall-clock time: run alone, after the parallel pass (Makefile).
pytestmark = [pytest.mark.browser, pytest.mark.timing]

# A claimed spare goes on with its preload only in the session's pauses (1 s without a request):
# the polls below leave pauses that long.
PAUSE = "const PAUSE_MS = 1200;"

# Warm a spare with numpy, take it, and report when numpy shows up in sys.modules without the
# sandbox's code ever importing it.
WARM_THEN_CREATE = (
    """async () => {
  """
    + PAUSE
    + """
  await wasmbox.Sandbox.warmup({ packages: ["numpy", "not-a-package"] });
  const sb = await wasmbox.Sandbox.create();
  for (let i = 0; i < 60; i++) {
    const r = await sb.execute("import sys\\n'numpy' in sys.modules");
    if (r.value["text/plain"] === "True") return { preloaded: true, polls: i };
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  return { preloaded: false };
}"""
)


def test_warm_spare_imports_the_named_packages(browser: Browser, isolated_server: str) -> None:
    """numpy shows up without the cell importing it. A cell does not wait for the preload (it goes
    on only in the session's pauses), so a few polls may pass first; test_app_safety checks the
    no-wait side."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{isolated_server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    assert page.evaluate(WARM_THEN_CREATE)["preloaded"] is True
    context.close()


@pytest.mark.parametrize("option", ["packages", "idlePackages"])
def test_warmup_refuses_a_malformed_package_list(
    browser: Browser, isolated_server: str, option: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{isolated_server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    message = page.evaluate(
        "o => wasmbox.Sandbox.warmup({ [o]: 'matplotlib' })"
        ".then(() => 'accepted', (e) => e.message)",
        option,
    )
    assert message == f"warmup {option} must be a list of at most 50 package names"
    context.close()


# Warm a spare with matplotlib, take it, and wait for pyplot without the cell importing it: it
# must use the sandbox's backend (the spare imported it before any kernel existed), hold no
# figure of the spare's throwaway drawing, and plot as usual.
WARM_MATPLOTLIB = (
    """async () => {
  """
    + PAUSE
    + """
  wasmbox.Sandbox.cooldown();
  await wasmbox.Sandbox.warmup({ packages: ["matplotlib"] });
  const sb = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
  for (let i = 0; i < 100; i++) {
    const r = await sb.execute(
      "import sys\\n'matplotlib.pyplot' in sys.modules and " +
      "(sys.modules['matplotlib'].get_backend(), sys.modules['matplotlib.pyplot'].get_fignums())",
    );
    if (r.value["text/plain"] !== "False") {
      const plot = await sb.execute("import matplotlib.pyplot as plt\\nplt.plot([1, 2])");
      return { state: r.value["text/plain"], shown: plot.displays.map((d) => d.mime) };
    }
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  return { state: "never preloaded" };
}"""
)


def test_a_spare_preloads_matplotlib_with_the_sandbox_backend(
    browser: Browser, isolated_server: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{isolated_server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    outcome = page.evaluate(WARM_MATPLOTLIB)
    assert outcome == {
        "state": "('module://wasmbox_kernel.mpl_backend', [])",
        "shown": ["image/png"],
    }
    context.close()


# A spare asked for no packages, once the page is quiet, loads the idle packages (matplotlib by
# default); with `idlePackages: []` it loads nothing. Claimed as its preload starts, the session's
# cells back to back do not wait for it (it goes on only once the session has paused for 1 s),
# and its pauses finish it. Returns whether pyplot came in during the cells and after the pauses.
IDLE_SPARE = """async ([options]) => {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  wasmbox.Sandbox.cooldown();
  await wasmbox.Sandbox.warmup(options);
  const preloading = () => performance.getEntriesByName("wasmbox:spare-idle-preload").length > 0;
  const rehearsed = () => performance.getEntriesByName("wasmbox:spare-rehearsed").length > 0;
  const until = performance.now() + 60000;
  while (!preloading() && !(rehearsed() && options.idlePackages) && performance.now() < until)
    await sleep(20);
  // Past the quiet time the preload waits for: with it turned off, nothing starts meanwhile.
  if (options.idlePackages) await sleep(3000);
  const sb = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
  const check = "import sys\\n'matplotlib.pyplot' in sys.modules";
  const held = async () => (await sb.execute(check)).value["text/plain"];
  // Cells back to back for 4 s: on a quiet machine, time enough to install and import matplotlib
  // between them if the preload did not wait for the session's pauses.
  const during = new Set();
  const claimed = performance.now();
  while (performance.now() < claimed + 4000) during.add(await held());
  let after = await held();
  for (let i = 0; i < 40 && after === "False" && preloading(); i++) {
    await sleep(1500);
    after = await held();
  }
  await sb.close();
  return { preloading: preloading(), during: [...during], after };
}"""


def test_a_quiet_pages_spare_preloads_matplotlib_unless_told_not_to(
    browser: Browser, isolated_server: str
) -> None:
    outcomes = []
    choices: tuple[dict[str, list[str]], ...] = ({}, {"idlePackages": []})
    for options in choices:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{isolated_server}{SDK_PAGE}")
        page.wait_for_function("() => window.sdkReady === true")
        outcomes.append(page.evaluate(IDLE_SPARE, [options]))
        context.close()
    assert outcomes == [
        {"preloading": True, "during": ["False"], "after": "True"},
        {"preloading": False, "during": ["False"], "after": "False"},
    ]
