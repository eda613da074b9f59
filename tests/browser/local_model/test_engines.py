"""localModel in the other engines (`make test-engines`): a wrong sha256 refused, the model
loaded, a reply streamed, an agent turn whose call runs in the sandbox with nothing sent away,
a cancel that stops it. Chromium runs the fuller test_local_model.py;
WebKit is not supported (the engine's build for it comes only from a CDN: docs/local-model.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.local_model.conftest import MODEL_OPTIONS, MODEL_URL, PAGE, SCRIPTED
from tests.support.engines import EngineBrowser, EnginePage
from tests.support.engines.firefox import FirefoxPage
from tests.support.models import SMOLLM2
from tests.support.network import RequestLog

pytestmark = [pytest.mark.browser, pytest.mark.timeout(1800)]

READY_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def engine_page(engine: EngineBrowser, model_server: str) -> Iterator[EnginePage]:
    if engine.name == "chromium":
        pytest.skip("Chromium: tests/browser/local_model/test_local_model.py")
    if engine.name == "webkit":
        pytest.skip("WebKit: wllama runs there only with its CDN-hosted compat build")
    page = engine.new_page()
    page.goto(model_server + PAGE)
    page.wait_for_function("window.localReady === true", timeout=READY_TIMEOUT_MS)
    yield page
    page.close()


def load(page: EnginePage, **options: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("o => localTest.load(o)", {**MODEL_OPTIONS, **options})
    return result


def test_a_wrong_sha256_is_refused(engine_page: EnginePage) -> None:
    error = load(engine_page, sha256="f" * 64)["error"]
    assert error["type"] == "sha256-mismatch" and SMOLLM2.sha256 in error["message"]


def test_the_model_loads_and_streams_a_reply(engine_page: EnginePage) -> None:
    info = load(engine_page, sha256=SMOLLM2.sha256)["info"]
    assert info["bytes"] == SMOLLM2.size

    result = engine_page.evaluate(
        "m => localTest.chat(m)", [{"role": "user", "content": "Say yes."}]
    )

    assert "error" not in result, result.get("error")
    assert sum(1 for d in result["deltas"] if d["content"]) > 1
    assert result["timings"]["generatedTokens"] > 0


def test_an_agent_turn_runs_its_call_in_the_sandbox_and_sends_nothing_away(
    engine_page: EnginePage, model_server: str
) -> None:
    assert isinstance(engine_page, FirefoxPage), "the fixture leaves Firefox only"
    engine_page.watch_requests()

    result = engine_page.evaluate("([t, o]) => localTest.ask(t, o)", [SCRIPTED, {}])

    assert "error" not in result, result.get("error")
    events: list[dict[str, Any]] = result["events"]
    assert result["turn"]["finish"] in ("answer", "step-limit")
    codes = [e["part"]["id"] for e in events if e["type"] == "code"]
    results = [e["part"]["id"] for e in events if e["type"] == "result"]
    assert codes == results, "every call the model made ran in the sandbox"
    log = RequestLog(model_server, [url for _, url in engine_page.requests()])
    assert log.foreign() == [], "nothing leaves the origin during the turn"
    assert not any(MODEL_URL in url for url in log.urls), "the weights are not fetched again"


def test_a_cancel_stops_the_reply(engine_page: EnginePage) -> None:
    result = engine_page.evaluate(
        "([m, o]) => localTest.chat(m, o)",
        [[{"role": "user", "content": "Count to fifty."}], {"abortAfterTokens": 3}],
    )
    assert result["error"]["name"] == "AbortError"
    assert sum(1 for d in result["deltas"] if d["content"]) <= 5
