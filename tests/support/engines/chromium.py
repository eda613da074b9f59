"""Chromium through Playwright, launched with the flags in tests/support/browser.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.support.browser import launch_args
from tests.support.engines.base import DEFAULT_TIMEOUT_MS, poll


class ChromiumPage:
    def __init__(self, context: BrowserContext) -> None:
        self.context = context
        context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        self.page: Page = context.new_page()

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        return self.page.evaluate(expression, arg)

    def wait_for_function(
        self, expression: str, arg: Any = None, timeout: float | None = None
    ) -> Any:
        # Playwright evals a non-function predicate in the page, which the app page's CSP refuses.
        return poll(self, expression, arg, timeout)

    def set_offline(self, offline: bool) -> None:
        self.context.set_offline(offline)

    def close(self) -> None:
        self.context.close()


class ChromiumBrowser:
    name = "chromium"

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.version = browser.version

    def new_page(self) -> ChromiumPage:
        """A page in a new context: its own storage and HTTP cache, like the other engines'."""
        return ChromiumPage(self.browser.new_context())

    def close(self) -> None:
        """The Playwright browser belongs to whoever launched it."""


@contextmanager
def launched_chromium() -> Iterator[ChromiumBrowser]:
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        try:
            yield ChromiumBrowser(browser)
        finally:
            browser.close()
