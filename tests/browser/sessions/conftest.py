"""Fixtures for the persisted-session tests: Playwright Chromium pages that share one origin's
storage (a browser context), so a test can reload, open a second tab, or restart the browser."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.sandbox.conftest import SDK_PAGE, isolated_server  # noqa: F401

pytestmark = pytest.mark.browser

TIMEOUT_MS = 120_000


def open_sdk(context: BrowserContext, server: str) -> Page:
    page = context.new_page()
    load_sdk(page, server)
    return page


def load_sdk(page: Page, server: str) -> None:
    page.goto(f"{server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true", timeout=TIMEOUT_MS)


def run(page: Page, sandbox_id: str, code: str) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        "([id, code]) => wasmbox.Sandbox.get(id).execute(code)", [sandbox_id, code]
    )
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    return result


def plain(page: Page, sandbox_id: str, code: str) -> str:
    value: str = run(page, sandbox_id, code)["value"]["text/plain"]
    return value


def create(page: Page, **options: Any) -> str:
    sandbox_id: str = page.evaluate(
        "async o => (await wasmbox.Sandbox.create(o)).id",
        {"persist": True, "timeoutMs": 120_000, **options},
    )
    return sandbox_id


def flush(page: Page, sandbox_id: str) -> None:
    page.evaluate("id => wasmbox.Sandbox.get(id).flush()", sandbox_id)


def resume(page: Page, sandbox_id: str) -> dict[str, Any]:
    """Resume in this page; returns the resume report."""
    report: dict[str, Any] = page.evaluate(
        "async id => (await wasmbox.Sandbox.resume(id)).resumeReport", sandbox_id
    )
    return report


def listed(page: Page) -> dict[str, dict[str, Any]]:
    entries: list[dict[str, Any]] = page.evaluate("wasmbox.Sandbox.list()")
    return {e["id"]: e for e in entries}


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh profile's storage for one test."""
    context = browser.new_context()
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


@pytest.fixture
def page(context: BrowserContext, isolated_server: str) -> Page:  # noqa: F811
    return open_sdk(context, isolated_server)
