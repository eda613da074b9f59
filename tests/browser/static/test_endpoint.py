"""The exported app's chat with no wasmbox server: the user enters an OpenAI-compatible endpoint in
the page, and the page (never the sandbox) talks to it directly. The fake upstream on loopback
stands for a local Ollama; the export is served by `python -m http.server` with no headers."""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.app.conftest import AppPage, ScriptedModel, final
from tests.support.fake_openai import FakeOpenAI, tool_call_stream_reply
from tests.support.servers import free_port

pytestmark = pytest.mark.browser

KEY = "sk-local-not-a-secret"
READY_TIMEOUT_MS = 180_000
ANSWER_TIMEOUT_MS = 180_000


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def enter_endpoint(app: AppPage, base_url: str, key: str = KEY) -> None:
    """Fill the Model endpoint form as a user does; saving reloads the page. The form is there
    before the sandbox is ready, so the callers do not wait for a sandbox the reload replaces."""
    page = app.page
    page.get_by_label("Base URL").fill(base_url)
    page.get_by_label("Model name").fill("gpt-test")
    page.get_by_label("API key (optional)").fill(key)
    with page.expect_navigation():
        page.get_by_role("button", name="Save and reload").click()
    page.get_by_text("Sandbox: ready").wait_for(timeout=READY_TIMEOUT_MS)


def test_with_nothing_entered_the_console_works_and_nothing_leaves(
    app_page: AppPage, static_site: str
) -> None:
    app = app_page
    app.open(static_site)
    page = app.page
    expect(page.get_by_role("note")).to_contain_text("enter an OpenAI-compatible endpoint")
    expect(page.get_by_role("tab", name="Chat")).to_be_hidden()
    expect(page.locator("#endpoint-where")).to_contain_text("nothing leaves this page")
    app.run_console("print(6 * 7)")
    expect(page.get_by_role("log")).to_contain_text("42")
    assert app.requests.foreign() == []


def test_the_chat_goes_straight_to_the_entered_endpoint(
    app_page: AppPage, static_site: str, fake_llm: FakeOpenAI, model: ScriptedModel
) -> None:
    fake_llm.cors_origin = origin_of(static_site)
    app = app_page.visit(static_site)
    enter_endpoint(app, fake_llm.base_url)
    page = app.page
    expect(page.locator("#endpoint-where")).to_contain_text(
        f"straight to {fake_llm.base_url} (model gpt-test)"
    )
    model.script(tool_call_stream_reply("print(6 * 7)"), final("The answer is 42."))
    app.ask("What is 6 times 7?", timeout_ms=ANSWER_TIMEOUT_MS)

    expect(page.get_by_role("log")).to_contain_text("The answer is 42.")
    posts = [r for r in fake_llm.received[model.start :] if r.method == "POST"]
    assert len(posts) == 2
    tool_results = [m for m in posts[1].json["messages"] if m["role"] == "tool"]
    assert json.loads(tool_results[0]["content"])["stdout"] == "42\n"
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in posts)
    assert all(KEY not in r.body.decode() for r in posts), "the key is a header, never content"
    assert {origin_of(u) for u in app.requests.foreign()} == {origin_of(fake_llm.base_url)}


def test_the_page_may_reach_its_endpoint_and_nothing_else(
    app_page: AppPage, static_site: str, fake_llm: FakeOpenAI, model: ScriptedModel
) -> None:
    fake_llm.cors_origin = origin_of(static_site)
    with FakeOpenAI() as elsewhere:
        elsewhere.cors_origin = "*"
        app = app_page.visit(static_site)
        enter_endpoint(app, fake_llm.base_url)
        probe = """async url => {
            const refused = new Promise(r => document.addEventListener(
                "securitypolicyviolation", e => r(e.violatedDirective), { once: true }));
            try { await fetch(url, { method: "POST", body: "{}" }); return "sent"; }
            catch { return "refused: " + await refused; }
        }"""
        verdict = app.page.evaluate(probe, f"{elsewhere.base_url}/chat/completions")
        assert verdict == "refused: connect-src"
        assert elsewhere.received == []
        assert app.page.evaluate(probe, f"{fake_llm.base_url}/chat/completions") == "sent"


def test_an_endpoint_that_refuses_this_origin_is_named(
    app_page: AppPage, static_site: str, fake_llm: FakeOpenAI, model: ScriptedModel
) -> None:
    app = app_page.visit(static_site)
    enter_endpoint(app, fake_llm.base_url)  # the fake sends no CORS headers
    app.ask("Hello?", timeout_ms=ANSWER_TIMEOUT_MS)
    error = app.page.get_by_role("log").locator(".error")
    expect(error).to_contain_text("does not allow requests from this page")
    expect(error).to_contain_text(f"OLLAMA_ORIGINS={origin_of(static_site)}")


def test_an_endpoint_that_does_not_answer_is_named(app_page: AppPage, static_site: str) -> None:
    app = app_page.visit(static_site)
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    enter_endpoint(app, nowhere)
    app.ask("Hello?", timeout_ms=ANSWER_TIMEOUT_MS)
    error = app.page.get_by_role("log").locator(".error")
    expect(error).to_contain_text(f"{nowhere} did not answer")


def test_a_bad_entry_is_refused_and_not_stored(app_page: AppPage, static_site: str) -> None:
    app = app_page.visit(static_site)
    page = app.page
    page.get_by_label("Base URL").fill("ftp://127.0.0.1/v1")
    page.get_by_label("Model name").fill("gpt-test")
    page.get_by_role("button", name="Save and reload").click()
    expect(page.locator("#endpoint-error")).to_contain_text("must be an http: or https: URL")
    assert page.evaluate("localStorage.getItem('wasmbox-endpoint')") is None


def test_the_exported_page_carries_its_policy(static_site: str) -> None:
    """A static host sends no CSP header: the page holds it, and narrows connect-src itself."""
    with urllib.request.urlopen(static_site) as response:
        html = response.read().decode()
    assert '<meta http-equiv="Content-Security-Policy"' in html
    assert "connect-src 'self' http: https:" in html
    assert "script-src 'self' 'wasm-unsafe-eval' 'sha256-" in html
