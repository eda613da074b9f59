"""localModel in Chromium: the weights checked and kept, an agent turn answered in the page with
nothing sent anywhere, a cancel that ends the turn, and a reload that loads from the store.

The tests share one page and one loaded model (conftest.py) and run in this order: the refusal
first (before the good weights are stored), then the load, then turns on the loaded model.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.local_model.conftest import MODEL_URL, SCRIPTED, LocalPage
from tests.support.models import SMOLLM2

# SmolLM2 in WebAssembly: a turn takes minutes on a loaded 2-core machine.
pytestmark = [pytest.mark.browser, pytest.mark.timeout(1800)]

WRONG_SHA256 = "0" * 64


def test_wrong_sha256_is_refused_naming_both_hashes(local_page: LocalPage) -> None:
    result = local_page.load(sha256=WRONG_SHA256)

    error = result["error"]
    assert error["type"] == "sha256-mismatch"
    assert SMOLLM2.sha256 in error["message"] and WRONG_SHA256 in error["message"]
    assert error["hint"], "a refusal says what to try"
    stored = local_page.stored_urls()
    assert not any(MODEL_URL in url for url in stored), "a refused file is not kept"


def test_loads_with_progress_and_keeps_the_weights(local_page: LocalPage) -> None:
    result = local_page.load(sha256=SMOLLM2.sha256)

    info = result.get("info")
    assert info, result.get("error")
    assert info["bytes"] == SMOLLM2.size and info["architecture"] == "llama"
    assert info["toolCalls"] == "text", "SmolLM2's template has no tools: calls travel as text"
    phases = [event["phase"] for event in local_page.progress()]
    assert phases[0] == "download" and phases[-1] == "ready"
    assert {"verify", "store", "load"} <= set(phases)


def test_agent_turn_runs_in_the_page_and_sends_nothing(local_page: LocalPage) -> None:
    local_page.requests.urls.clear()

    result = local_page.ask(SCRIPTED)

    assert "error" not in result, result.get("error")
    events: list[dict[str, Any]] = result["events"]
    texts = [e for e in events if e["type"] == "text"]
    assert len(texts) > 1, "the reply streams token by token"
    assert result["turn"]["finish"] in ("answer", "step-limit")
    codes = [e["part"]["id"] for e in events if e["type"] == "code"]
    results = [e["part"]["id"] for e in events if e["type"] == "result"]
    assert codes == results, "every call the model made ran in the sandbox"
    timings = result["timings"]
    assert timings["generatedTokens"] > 0 and timings["promptTokens"] > 0
    assert local_page.requests.foreign() == [], "nothing leaves the origin during the turn"
    assert not any(MODEL_URL in url for url in local_page.requests.urls), (
        "the weights are not fetched again"
    )


def test_next_step_reuses_the_cached_prefix(local_page: LocalPage) -> None:
    system = {"role": "system", "content": "You are brief."}
    first = local_page.chat([system, {"role": "user", "content": "Say hi."}])
    assert "error" not in first, first.get("error")

    second = local_page.chat(
        [
            system,
            {"role": "user", "content": "Say hi."},
            {"role": "assistant", "content": "Hi."},
            {"role": "user", "content": "Again."},
        ]
    )

    assert second["timings"]["cachedTokens"] > 0, "only the new tokens are processed"


def test_cancel_mid_generation_ends_the_turn(local_page: LocalPage) -> None:
    result = local_page.ask("Count from one to one hundred in words.", abortAfterTokens=2)

    assert result["error"]["name"] == "AbortError"
    texts = [e for e in result["events"] if e["type"] == "text"]
    assert 2 <= len(texts) <= 4, "generation stopped right after the cancel"

    after = local_page.chat([{"role": "user", "content": "Say yes."}])
    assert "error" not in after, "the engine answers again after a cancel"


def test_reload_loads_the_weights_from_the_store(local_page: LocalPage) -> None:
    local_page.page.reload()
    local_page.page.wait_for_function("() => window.localReady === true")
    local_page.requests.urls.clear()

    result = local_page.load(sha256=SMOLLM2.sha256)

    info = result.get("info")
    assert info, result.get("error")
    assert info["fromStore"] is True
    assert not any(MODEL_URL in url for url in local_page.requests.urls), (
        "no request for the weights"
    )
    phases = [event["phase"] for event in local_page.progress()]
    assert "download" not in phases
    assert "verify" not in phases, "the digest checked while downloading was kept with the file"
