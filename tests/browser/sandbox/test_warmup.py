"""`Sandbox.warmup({packages})`: spares load and import packages while idle."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.sandbox.conftest import SDK_PAGE

pytestmark = pytest.mark.browser

# Warm a spare with numpy, take it, and report when numpy shows up in sys.modules without the
# sandbox's code ever importing it.
WARM_THEN_CREATE = """async () => {
  await wasmbox.Sandbox.warmup({ packages: ["numpy", "not-a-package"] });
  const sb = await wasmbox.Sandbox.create();
  for (let i = 0; i < 100; i++) {
    const r = await sb.execute("import sys\\n'numpy' in sys.modules");
    if (r.value["text/plain"] === "True") return { preloaded: true, polls: i };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { preloaded: false };
}"""


def test_warm_spare_imports_the_named_packages(browser: Browser, isolated_server: str) -> None:
    """numpy shows up without the cell importing it. A cell does not wait for the preload (it pauses
    while a cell runs), so a few polls may pass first; test_app_safety checks the no-wait side."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{isolated_server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    assert page.evaluate(WARM_THEN_CREATE)["preloaded"] is True
    context.close()


def test_warmup_refuses_a_malformed_package_list(browser: Browser, isolated_server: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{isolated_server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    message = page.evaluate(
        "wasmbox.Sandbox.warmup({ packages: 'numpy' }).then(() => 'accepted', (e) => e.message)"
    )
    assert "list of at most 50 package names" in message
    context.close()


# Warm a spare with matplotlib, take it, and wait for pyplot without the cell importing it: it
# must use the sandbox's backend (the spare imported it before any kernel existed), hold no
# figure of the spare's throwaway drawing, and plot as usual.
WARM_MATPLOTLIB = """async () => {
  wasmbox.Sandbox.cooldown();
  await wasmbox.Sandbox.warmup({ packages: ["matplotlib"] });
  const sb = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
  for (let i = 0; i < 300; i++) {
    const r = await sb.execute(
      "import sys\\n'matplotlib.pyplot' in sys.modules and " +
      "(sys.modules['matplotlib'].get_backend(), sys.modules['matplotlib.pyplot'].get_fignums())",
    );
    if (r.value["text/plain"] !== "False") {
      const plot = await sb.execute("import matplotlib.pyplot as plt\\nplt.plot([1, 2])");
      return { state: r.value["text/plain"], shown: plot.displays.map((d) => d.mime) };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { state: "never preloaded" };
}"""


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
# default); with `idlePackages: []` it loads nothing. Returns what the claimed worker then holds.
IDLE_SPARE = """async ([options]) => {
  wasmbox.Sandbox.cooldown();
  await wasmbox.Sandbox.warmup(options);
  const preloading = () => performance.getEntriesByName("wasmbox:spare-idle-preload").length > 0;
  const rehearsed = () => performance.getEntriesByName("wasmbox:spare-rehearsed").length > 0;
  const until = performance.now() + 60000;
  while (!preloading() && !(rehearsed() && options.idlePackages) && performance.now() < until)
    await new Promise((resolve) => setTimeout(resolve, 100));
  // Past the quiet time the preload waits for: with it turned off, nothing starts meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const sb = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
  const check = "import sys\\n'matplotlib.pyplot' in sys.modules";
  for (let i = 0; i < 300 && preloading(); i++) {
    if ((await sb.execute(check)).value["text/plain"] === "True") break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const held = (await sb.execute(check)).value["text/plain"];
  await sb.close();
  return { preloading: preloading(), held };
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
        {"preloading": True, "held": "True"},
        {"preloading": False, "held": "False"},
    ]


def test_warmup_refuses_malformed_idle_packages(browser: Browser, isolated_server: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{isolated_server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    message = page.evaluate(
        "wasmbox.Sandbox.warmup({ idlePackages: 'matplotlib' })"
        ".then(() => 'accepted', (e) => e.message)"
    )
    assert message == "warmup idlePackages must be a list of at most 50 package names"
    context.close()
