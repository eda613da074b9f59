"""`Sandbox.create({onProgress})`: runtime bytes as they download, then booting, then ready."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser.sandbox.conftest import SDK_PAGE

pytestmark = pytest.mark.browser

CREATE_WITH_PROGRESS = """async () => {
  const events = [];
  const sb = await wasmbox.Sandbox.create({ onProgress: (p) => events.push(p) });
  await sb.close();
  return events;
}"""


def progress_events(browser: Browser, server: str) -> list[dict[str, Any]]:
    context = browser.new_context()  # a cold HTTP cache: everything is downloaded
    page = context.new_page()
    page.goto(f"{server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    events: list[dict[str, Any]] = page.evaluate(CREATE_WITH_PROGRESS)
    context.close()
    return events


def test_progress_counts_the_runtime_download_then_ready(
    browser: Browser, isolated_server: str
) -> None:
    events = progress_events(browser, isolated_server)
    phases = [e["phase"] for e in events]

    assert phases[-1] == "ready"
    assert "downloading" in phases
    loaded = [e["loadedBytes"] for e in events]
    assert loaded == sorted(loaded)  # never goes backwards
    final = events[-1]
    assert final["loadedBytes"] == final["totalBytes"]
    assert final["totalBytes"] > 20_000_000  # the snapshot, the wasm and the standard library
