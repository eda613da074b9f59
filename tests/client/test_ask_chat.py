"""`wasmbox ask`'s model requests (wasmbox.ask.chat) against the fake OpenAI server: the deltas and
failures the page's Agent receives must be those its own HTTP chat would give it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import openai
import pytest

from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    cut_stream_reply,
    empty_stream_reply,
    error_reply,
    stream_reply,
    tool_call_completion_reply,
    tool_call_stream_reply,
)
from wasmbox.ask.chat import ChatStreams, openai_client

REQUEST = {
    "model": "gpt-test",
    "messages": [{"role": "user", "content": "hi"}],
    "tools": [{"type": "function", "function": {"name": "run_python", "parameters": {}}}],
    "tool_choice": "auto",
    "stream": True,
}


T = TypeVar("T")


def run_apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run in a thread of its own: a sync Playwright fixture used earlier in the session
    leaves an event loop running in the main thread, where asyncio.run refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def pull(fake: FakeOpenAI, reply: Reply, **request: Any) -> tuple[list[dict[str, Any]], Any]:
    """Every delta of one request, and its error (None when it ended well)."""

    async def run() -> tuple[list[dict[str, Any]], Any]:
        chat = ChatStreams(openai_client())
        reply_id = chat.start({**REQUEST, **request})
        deltas: list[dict[str, Any]] = []
        while True:
            batch = await chat.next(reply_id)
            deltas += batch["deltas"]
            if batch["done"]:
                return deltas, batch["error"]

    fake.script(reply)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("OPENAI_BASE_URL", fake.base_url)
        env.setenv("OPENAI_API_KEY", "sk-test")
        return run_apart(run())


def test_streamed_text_arrives_as_deltas_with_the_finish_reason() -> None:
    with FakeOpenAI() as fake:
        deltas, error = pull(fake, stream_reply(["Hel", "lo"]))
    assert error is None
    assert "".join(d.get("content") or "" for d in deltas) == "Hello"
    assert deltas[-1]["finishReason"] == "stop"


def test_a_streamed_tool_call_keeps_its_pieces_for_the_agent_to_join() -> None:
    with FakeOpenAI() as fake:
        deltas, error = pull(fake, tool_call_stream_reply("print(1)"))
    assert error is None
    pieces = [call for d in deltas for call in d.get("tool_calls") or []]
    assert pieces[0]["function"]["name"] == "run_python" and pieces[0]["index"] == 0
    arguments = "".join(p["function"]["arguments"] for p in pieces)
    assert json.loads(arguments) == {"code": "print(1)"}


def test_a_reply_without_streaming_is_one_delta() -> None:
    with FakeOpenAI() as fake:
        deltas, error = pull(fake, tool_call_completion_reply("print(2)"), stream=False)
        assert fake.received[0].json["stream"] is False
    assert error is None and len(deltas) == 1
    (call,) = deltas[0]["tool_calls"]
    assert call["index"] == 0 and json.loads(call["function"]["arguments"]) == {"code": "print(2)"}
    assert deltas[0]["content"] is None and deltas[0]["finishReason"] == "tool_calls"


def test_failures_are_the_sdk_chat_errors() -> None:
    with FakeOpenAI() as fake:
        _, empty = pull(fake, empty_stream_reply())
        _, cut = pull(fake, cut_stream_reply(["Hel"]))
        _, refused = pull(fake, error_reply(401, "bad key"))
        _, failed = pull(fake, error_reply(500))
        # Each request once: what a failure means is the Agent's to decide, not the client's.
        assert len(fake.received) == 4
    assert empty["type"] == "empty-stream"  # what makes the Agent ask again without streaming
    assert cut["type"] == "cut-stream"
    assert refused == {
        "type": "http",
        "message": "bad key",
        "status": 401,
        "code": "fake_error",
        "retryAfterS": None,
    }
    assert failed["type"] == "http" and failed["status"] == 500


def test_a_server_that_is_not_there_is_a_network_error() -> None:
    with FakeOpenAI() as fake:
        base = fake.base_url

    async def run() -> Any:
        client = openai.AsyncOpenAI(base_url=base, api_key="sk-test", max_retries=0)
        chat = ChatStreams(client)
        return await chat.next(chat.start(REQUEST))

    batch = run_apart(run())
    assert batch["done"] and batch["error"]["type"] == "network"


def test_cancel_closes_the_request() -> None:
    async def run(fake: FakeOpenAI) -> None:
        chat = ChatStreams(openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test"))
        reply_id = chat.start(REQUEST)
        assert (await chat.next(reply_id))["deltas"]  # the stream is flowing
        chat.cancel(reply_id)
        await chat.close()
        assert await chat.next(reply_id) == {"deltas": [], "done": True, "error": None}

    with FakeOpenAI() as fake:
        fake.script(stream_reply([f"{n} " for n in range(500)], chunk_delay_s=0.05))
        run_apart(run(fake))
        assert fake.disconnected.wait(10)
