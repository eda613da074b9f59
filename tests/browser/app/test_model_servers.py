"""The agent against model servers that behave like real ones: each failure is shown with what to
try, a server that cannot stream tool calls is asked without streaming, calls written as text run,
and a model switch applies from the next message on."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.browser.app.conftest import AppPage, ScriptedModel, final
from tests.support.fake_openai import (
    Reply,
    completion_reply,
    cut_stream_reply,
    empty_stream_reply,
    error_reply,
    functions_prefix_reply,
    hermes_reply,
    ollama_tool_call_stream_reply,
    reported_stdout,
    stream_reply,
    tool_call_completion_reply,
    tool_call_stream_reply,
    vllm_tool_call_stream_reply,
)

pytestmark = pytest.mark.browser

PRIMES = "print(sum(n for n in range(2, 100) if all(n % d for d in range(2, n))))"


def alert_text(app_page: AppPage) -> str:
    return app_page.page.get_by_role("alert").last.inner_text()


def test_a_server_that_cannot_stream_tool_calls_is_asked_without_streaming(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(
        empty_stream_reply(),
        tool_call_completion_reply(PRIMES),
        completion_reply("The sum is 1060."),
        completion_reply("Still here."),
    )
    app_page.open(agent_app).ask("What is the sum of all primes below 100?")
    page = app_page.page
    assert page.get_by_text("The sum is 1060.").is_visible()
    assert page.get_by_text("asking again without streaming").is_visible()
    assert model.tool_results()[0]["stdout"].strip() == "1060"
    app_page.ask("And now?")  # the session remembers: no second streamed attempt
    assert [r["stream"] for r in model.requests()] == [True, False, False, False]
    assert page.get_by_text("Still here.").is_visible()


def test_a_cut_stream_is_shown_with_what_to_try(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(cut_stream_reply(["The answer ", "is "]))
    app_page.open(agent_app).ask("Tell me")
    message = alert_text(app_page)
    assert message.startswith("The model request failed:")
    assert "send the message again" in message.lower()


def test_an_http_error_is_shown_with_what_to_try(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(error_reply(500, "boom"))
    app_page.open(agent_app).ask("Hello?")
    message = alert_text(app_page)
    assert message.startswith("The model request failed:")
    assert "check that it is running" in message
    assert "boom" not in message  # upstream bodies are not passed on


def test_an_empty_reply_is_an_error_not_an_answer(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(stream_reply([]), completion_reply(""))
    app_page.open(agent_app).ask("Say something")
    assert "answered with nothing" in alert_text(app_page)
    assert [r["stream"] for r in model.requests()] == [True, False]


def test_a_malformed_tool_call_is_shown_and_told_to_the_model(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(stream_reply(['<tool_call>{"name": "run_python", "arguments": {"code": "pri']))
    model.script(final("Sorry, let me stop."))
    app_page.open(agent_app).ask("Compute")
    assert "could not be run" in alert_text(app_page)
    assert model.requests()[-1]["messages"][-1]["role"] == "user"
    assert "not valid JSON" in model.requests()[-1]["messages"][-1]["content"]
    assert app_page.page.get_by_text("Sorry, let me stop.").is_visible()


def test_a_hermes_call_written_as_text_runs(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(hermes_reply(PRIMES), final("The sum is 1060."))
    app_page.open(agent_app).ask("What is the sum of all primes below 100?")
    follow_up = model.requests()[-1]["messages"][-1]
    assert reported_stdout(follow_up["content"]) == "1060"
    assert app_page.page.get_by_text("The sum is 1060.").is_visible()


def test_a_functions_prefix_call_written_as_text_runs(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(functions_prefix_reply(PRIMES), final("The sum is 1060."))
    app_page.open(agent_app).ask("What is the sum of all primes below 100?")
    follow_up = model.requests()[-1]["messages"][-1]
    assert reported_stdout(follow_up["content"]) == "1060"
    assert app_page.page.get_by_text("The sum is 1060.").is_visible()


def test_switching_the_model_applies_from_the_next_message(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(final("one"), final("two"))
    app_page.open(agent_app).ask("first")
    page = app_page.page
    page.get_by_label("Model", exact=True).select_option("gpt-other")
    app_page.ask("second")
    assert [r["model"] for r in model.requests()] == ["gpt-test", "gpt-other"]
    assert page.get_by_text("Model: gpt-other from this message on").is_visible()
    turns = app_page.transcript()["turns"]
    assert [t.get("model") for t in turns if t["role"] == "model"] == ["gpt-test", "gpt-other"]


def test_a_server_refusing_null_content_beside_tool_calls_is_sent_empty_strings(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(tool_call_stream_reply("print(6 * 7)"), final("It is 42."))
    model.fake.refuse_null_content = True
    try:
        app_page.open(agent_app).ask("Six times seven?")
    finally:
        model.fake.refuse_null_content = False
    assert app_page.page.get_by_text("It is 42.").is_visible()
    refused, accepted = model.requests()[-2:]
    assert refused["messages"][2]["content"] is None
    assert accepted["messages"][2]["content"] == ""
    assert accepted["messages"][2]["tool_calls"][0]["function"]["name"] == "run_python"


@pytest.mark.parametrize(
    "reply", [ollama_tool_call_stream_reply, vllm_tool_call_stream_reply], ids=["ollama", "vllm"]
)
def test_tool_calls_streamed_the_way_local_servers_stream_them_run(
    app_page: AppPage, agent_app: str, model: ScriptedModel, reply: Callable[[str], Reply]
) -> None:
    model.script(reply(PRIMES), final("The sum is 1060."))
    app_page.open(agent_app).ask("What is the sum of all primes below 100?")
    assert model.tool_results()[0]["stdout"].strip() == "1060"
    assert app_page.page.get_by_text("The sum is 1060.").is_visible()
