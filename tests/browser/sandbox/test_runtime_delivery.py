"""Runtime files reach the sandbox through the host page, whose HTTP cache survives visits: the
opaque frame's own cache is a new partition each time, so it would download the runtime again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Request

from tests.browser.sandbox.conftest import SDK_PAGE

pytestmark = pytest.mark.browser

LARGE_FILES = ("snapshot.bin", "pyodide.asm.wasm", "python_stdlib.zip")


def visit(browser_context, server: str) -> list[tuple[str, str, int]]:
    """Open the page, run one cell; the large runtime files requested: (name, by frame, bytes)."""
    page = browser_context.new_page()
    seen: list[Request] = []
    page.on("requestfinished", lambda request: seen.append(request))
    page.goto(f"{server}{SDK_PAGE}")
    page.wait_for_function("window.sdkReady === true")
    result = page.evaluate(
        "async () => { const sb = await wasmbox.Sandbox.create();"
        " const r = await sb.execute('6 * 7'); await sb.close(); return r.value['text/plain']; }"
    )
    assert result == "42"
    downloads = large_downloads(seen)  # sizes are only readable while the page is open
    page.close()
    return downloads


def large_downloads(requests: list[Request]) -> list[tuple[str, str, int]]:
    return [
        (r.url.rsplit("/", 1)[-1], r.frame.url.rsplit("/", 1)[-1], r.sizes()["responseBodySize"])
        for r in requests
        if r.url.rsplit("/", 1)[-1] in LARGE_FILES
    ]


def test_large_files_are_fetched_by_the_page_not_the_frame(
    browser: Browser, isolated_server: str
) -> None:
    context = browser.new_context()
    first = visit(context, isolated_server)
    assert {name for name, _, _ in first} == set(LARGE_FILES)
    assert all(frame == "sdk-sandbox.html" for _, frame, _ in first)
    context.close()


def test_repeat_visit_downloads_no_large_file_again(browser: Browser, isolated_server: str) -> None:
    context = browser.new_context()
    visit(context, isolated_server)
    again = visit(context, isolated_server)
    assert sum(size for _, _, size in again) == 0, again
    context.close()
