"""The app itself offline after one visit: its console runs code and imports numpy with the
network off (an exported folder on a static host) and after `wasmbox serve` has stopped (its
`/sw.js`). Chromium: Playwright's offline switch covers service workers."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from backend.settings import Settings
from tests.browser.app.conftest import AppPage
from tests.support import servers

from .offline import wait_until_ready_offline

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 300_000
NUMPY = "import numpy as np\nprint('offline sum', int(np.arange(4).sum()))"


def run_numpy(app: AppPage, runs_before: int = 0) -> None:
    app.run_console(NUMPY, timeout_ms=RUN_TIMEOUT_MS)
    outputs = app.page.get_by_label("stdout")
    expect(outputs).to_have_count(runs_before + 1)  # this run's own output, not a restored one
    expect(outputs.last).to_contain_text("offline sum 6")


def reload_offline(app: AppPage) -> None:
    """Reload with no network: the page comes back with the conversation restored from storage."""
    app.page.reload()
    app.page.get_by_text("Sandbox: ready").wait_for(timeout=RUN_TIMEOUT_MS)
    expect(app.page.get_by_text("Restored from this browser")).to_be_visible()


def test_the_app_console_runs_offline_on_a_static_host(app_page: AppPage, static_site: str) -> None:
    app = app_page.open(static_site)
    run_numpy(app)  # numpy's wheel is used once, online
    wait_until_ready_offline(app.page, ["numpy"], RUN_TIMEOUT_MS)
    app.page.context.set_offline(True)
    reload_offline(app)
    run_numpy(app, runs_before=1)


def test_the_app_console_runs_after_wasmbox_serve_stopped(
    app_page: AppPage, runtime_built: None
) -> None:
    with servers.running(servers.test_app(Settings())) as url:
        app = app_page.open(url + "/")
        run_numpy(app)
        wait_until_ready_offline(app.page, ["numpy"], RUN_TIMEOUT_MS)
        scope = app.page.evaluate("() => navigator.serviceWorker.ready.then(r => r.scope)")
        assert scope == url + "/"
    reload_offline(app)  # the server is gone
    run_numpy(app, runs_before=1)
