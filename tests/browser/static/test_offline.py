"""Offline after one visit (the export's service worker, Workbox): the embed runs code and imports
numpy with the network off; a new build replaces the old one whole, and the
page says an update is ready. Chromium (Playwright's offline switch covers service workers)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.support.engines.base import poll
from tests.support.static_host import export_with_test_pages, http_server

from .offline import wait_until_ready_offline

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 180_000
NUMPY = "import numpy as np\nprint('sum', int(np.arange(4).sum()))"


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context()
    yield context
    context.close()


def wait_until_controlled(page: Page) -> None:
    """The service worker has precached this build and controls the page."""
    page.wait_for_function(
        "() => navigator.serviceWorker.controller !== null", timeout=RUN_TIMEOUT_MS, polling=200
    )


def run_numpy_cell(page: Page) -> str:
    """The embed's last cell, given numpy code and a deadline no busy machine reaches."""
    output: str = page.evaluate(
        """async code => {
            const cell = document.getElementById("in-b");
            cell.shadowRoot.querySelector("textarea").value = code;
            cell.setAttribute("timeout", "600");
            const result = await cell.run();
            return result ? result.stdout || JSON.stringify(result.error) : "no result";
        }""",
        NUMPY,
    )
    return output


def test_numpy_imports_offline_after_one_use(context: BrowserContext, static_site: str) -> None:
    page = context.new_page()
    page.goto(f"{static_site}examples/embed.html")
    page.wait_for_function("customElements.get('wasmbox-cell') !== undefined")
    assert run_numpy_cell(page) == "sum 6\n"  # numpy's wheel is used once, online
    wait_until_ready_offline(page, ["numpy"], RUN_TIMEOUT_MS)
    context.set_offline(True)
    page.reload()
    page.wait_for_function("customElements.get('wasmbox-cell') !== undefined")
    assert run_numpy_cell(page) == "sum 6\n"


def test_the_embed_runs_offline(context: BrowserContext, static_site: str) -> None:
    page = context.new_page()
    page.goto(f"{static_site}examples/embed.html")
    expect(page.locator("#answer").get_by_label("Output")).to_contain_text(
        "42", timeout=RUN_TIMEOUT_MS
    )
    wait_until_controlled(page)
    context.set_offline(True)
    page.reload()
    expect(page.locator("#answer").get_by_label("Output")).to_contain_text(
        "42", timeout=RUN_TIMEOUT_MS
    )


def test_a_new_build_waits_for_the_user_and_replaces_the_old_whole(
    context: BrowserContext, tmp_path: Path, runtime_built: None
) -> None:
    site = export_with_test_pages(tmp_path / "site")
    with http_server(tmp_path / "site") as url:
        page = context.new_page()
        page.goto(f"{url}/")
        wait_until_controlled(page)
        old_sdk = page.evaluate("fetch('sdk/wasmbox.js').then(r => r.text())")

        # The next build: a changed SDK and app (a marker at the end of each file).
        shutil.rmtree(site / "test-pages")
        export_with_test_pages(site)
        for name in ("sdk/wasmbox.js", "app/app.js"):
            with (site / name).open("a") as handle:
                handle.write("\n// next build\n")
        rebuild_service_worker(site)

        page.reload()
        notice = page.get_by_role("button", name="Reload to update")
        expect(notice).to_be_visible(timeout=RUN_TIMEOUT_MS)
        # Until the user agrees, every file is still the old build's.
        assert page.evaluate("fetch('sdk/wasmbox.js').then(r => r.text())") == old_sdk
        # The new build takes over, then the page reloads.
        with page.expect_navigation(timeout=RUN_TIMEOUT_MS):
            notice.click()
        # Polled: Playwright's wait_for_function takes the fetch's promise as true at once.
        sdk_is_new = (
            "() => fetch('sdk/wasmbox.js').then(r => r.text()).then(t => t.endsWith('build\\n'))"
        )
        poll(page, sdk_is_new, None, RUN_TIMEOUT_MS)
        app = page.evaluate("fetch('app/app.js').then(r => r.text())")
        assert app.endswith("// next build\n"), "the SDK and the app come from the same build"


def rebuild_service_worker(site: Path) -> None:
    """The export's own step, re-run after the files changed (as a real next build would)."""
    from backend.site_export import write_service_worker
    from wasm_runtime.paths import JS_DIR

    write_service_worker(JS_DIR, site, precache_all=False)
