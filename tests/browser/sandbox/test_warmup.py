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
