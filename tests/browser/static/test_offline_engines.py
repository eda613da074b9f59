"""Offline in every engine whose driver can cut the network: Chromium (Playwright) and Firefox
(WebDriver BiDi's emulation.setNetworkConditions). WebKitWebDriver has no such switch, so
WebKitGTK is skipped here (docs/browsers.md). The export's service worker precaches the app page
as the site's folder (`./`); a user who opened it by its file name reloads it offline too."""

from __future__ import annotations

import pytest

from tests.support.engines import EngineBrowser

pytestmark = pytest.mark.browser

CONTROLLED_TIMEOUT_MS = 180_000
APP_PAGE = """() => ({
  heading: document.querySelector("h1")?.textContent,
  conversation: document.querySelector("[role=log]")?.getAttribute("aria-label"),
})"""


@pytest.mark.parametrize("address", ["", "index.html"], ids=["folder", "index-html"])
def test_the_app_reloads_offline_at_the_address_it_was_opened_at(
    engine: EngineBrowser, static_site: str, address: str
) -> None:
    if engine.name == "webkit":
        pytest.skip("WebKitWebDriver has no switch to take a page offline")
    page = engine.new_page()
    try:
        page.goto(f"{static_site}{address}")
        page.wait_for_function(
            "() => navigator.serviceWorker.controller !== null", timeout=CONTROLLED_TIMEOUT_MS
        )
        page.set_offline(True)
        # A new visit, as a reload is: Firefox can abort a navigation to the URL it shows.
        page.goto("about:blank")
        page.goto(f"{static_site}{address}")
        assert page.evaluate(APP_PAGE) == {"heading": "wasmbox", "conversation": "Conversation"}
    finally:
        page.close()
