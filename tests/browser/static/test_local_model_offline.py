"""An exported site that ships a model (`wasmbox export DIR --model FILE.gguf`) answers in the app
with no endpoint at all, nothing sent anywhere, and again with the network off after one visit.
Chromium: Playwright's offline switch covers service workers. SmolLM2-135M is slow here (minutes
a turn on a loaded 2-core machine) and weak: the checks are about where the answer comes from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from backend.site_export import ExportOptions, export_site
from tests.browser.app.conftest import AppPage
from tests.support.models import SMOLLM2, ensure
from tests.support.static_host import http_server

from .offline import wait_until_ready_offline

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1800)]

TURN_TIMEOUT_MS = 1_500_000
QUESTION = "Say hello in three words."


@pytest.fixture(scope="module")
def site_with_model(tmp_path_factory: pytest.TempPathFactory, runtime_built: None) -> Iterator[str]:
    folder: Path = tmp_path_factory.mktemp("model-site") / "site"
    export_site(ExportOptions(out_dir=folder, model=ensure(SMOLLM2), model_sha256=SMOLLM2.sha256))
    with http_server(folder) as url:
        yield url + "/"


def errors_shown(app: AppPage) -> list[str]:
    return [text for text in app.page.get_by_role("alert").all_inner_texts() if text.strip()]


def answers(app: AppPage) -> int:
    return app.page.locator(".model-text").count()


def test_the_shipped_model_answers_in_the_page_then_offline(
    app_page: AppPage, site_with_model: str
) -> None:
    app = app_page.open(site_with_model)
    picker = app.page.get_by_label("Model", exact=True)
    expect(picker).to_be_enabled()
    expect(picker).to_have_value("on-device")

    app.ask(QUESTION, timeout_ms=TURN_TIMEOUT_MS)

    assert answers(app) >= 1, "the model's text is shown"
    status = app.page.locator("#local-model-status")
    expect(status).to_contain_text("nothing is sent anywhere")
    assert app.dialogs == []
    assert app.requests.foreign() == [], "the answer came from the page"
    assert errors_shown(app) == [], "the turn ended without an error"

    wait_until_ready_offline(app.page, [], TURN_TIMEOUT_MS)
    app.page.context.set_offline(True)
    app.page.reload()
    app.page.get_by_text("Sandbox: ready").wait_for(timeout=TURN_TIMEOUT_MS)
    before = answers(app)
    app.ask(QUESTION, timeout_ms=TURN_TIMEOUT_MS)

    assert answers(app) > before, "a new answer, with the network off"
    expect(status).to_contain_text("nothing is sent anywhere")  # the weights came from the store
    assert errors_shown(app) == [], "offline, it answered from the store"
