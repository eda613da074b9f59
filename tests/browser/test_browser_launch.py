"""The browser the tests and benchmarks drive is launched as `wasmbox.browser` says."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.support.browser import BROWSER_UI_FEATURES

pytestmark = pytest.mark.browser


def disabled_features(browser: Browser) -> list[set[str]]:
    """Each `--disable-features` list on the browser's command line, in order."""
    page = browser.new_page()
    page.goto("chrome://version")
    command_line = page.inner_text("#command_line")
    page.close()
    prefix = "--disable-features="
    return [
        set(arg[len(prefix) :].split(",")) for arg in command_line.split() if arg.startswith(prefix)
    ]


def test_our_feature_list_keeps_playwrights(browser: Browser) -> None:
    """Chromium applies only the last list: it must still name everything Playwright disables."""
    *earlier, last = disabled_features(browser)
    missing = set().union(*earlier) - last
    assert not missing, (
        f"add to PLAYWRIGHT_DISABLED_FEATURES in wasm_runtime/client/wasmbox/browser.py: {missing}"
    )
    assert set(BROWSER_UI_FEATURES) <= last


def test_no_omnibox_popup_is_built_for_a_new_page(browser: Browser) -> None:
    context = browser.new_context()
    context.new_page().goto("about:blank")
    targets = browser.new_browser_cdp_session().send("Target.getTargets")["targetInfos"]
    context.close()
    assert [t["url"] for t in targets if "omnibox-popup" in t["url"]] == []
