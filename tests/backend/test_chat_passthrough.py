"""What reaches the upstream is exactly what was allowed, and what comes back is passed on."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.backend.conftest import API_KEY, CHAT, MODEL, MakeClient, chat_body
from tests.support.fake_openai import (
    DONE,
    FakeOpenAI,
    completion_reply,
    stream_reply,
    tool_call_stream_reply,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run_python",
            "description": "Run Python in the sandbox",
            "parameters": {"type": "object", "properties": {"code": {"type": "string"}}},
        },
    }
]


def sse_payloads(raw: bytes) -> list[Any]:
    """The `data:` payloads of an SSE body, decoded, `[DONE]` kept as a string."""
    payloads: list[Any] = []
    for line in raw.decode().splitlines():
        if line.startswith("data: "):
            data = line[len("data: ") :]
            payloads.append(data if data == "[DONE]" else json.loads(data))
    return payloads


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(chat_body(max_tokens=100), id="plain"),
        pytest.param(
            chat_body(
                max_tokens=100,
                tools=TOOLS,
                tool_choice="auto",
                temperature=0.2,
                top_p=0.9,
                seed=7,
                stop=["\n\n"],
                user="u1",
            ),
            id="tools-and-sampling",
        ),
        pytest.param(
            {
                "model": MODEL,
                "max_completion_tokens": 50,
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": [{"type": "text", "text": "Plot it"}]},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "run_python", "arguments": '{"code":"1"}'},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "call_1", "content": "OUTCOME_OK"},
                ],
            },
            id="tool-round-trip",
        ),
    ],
)
def test_upstream_receives_exactly_the_allowed_body(
    client: TestClient, fake_upstream: FakeOpenAI, body: dict[str, Any]
) -> None:
    assert client.post(CHAT, json=body).status_code == 200
    assert fake_upstream.received[0].json == body


def test_upstream_gets_the_server_key_and_none_of_the_browser_headers(
    client: TestClient, fake_upstream: FakeOpenAI
) -> None:
    browser_headers = {
        "Authorization": "Bearer browser-token",
        "Cookie": "session=browser-cookie",
        "X-Forwarded-Host": "evil.example",
        "OpenAI-Organization": "org-browser",
    }
    client.post(CHAT, json=chat_body(), headers=browser_headers)
    received = fake_upstream.received[0]
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == f"Bearer {API_KEY}"
    forwarded = " ".join(received.headers.values())
    assert "browser" not in forwarded
    assert "evil.example" not in forwarded


@pytest.mark.parametrize(
    ("asked", "sent"),
    [
        pytest.param({}, {"max_tokens": 256}, id="absent-set-to-cap"),
        pytest.param({"max_tokens": 10_000}, {"max_tokens": 256}, id="max-tokens-clamped"),
        pytest.param({"max_tokens": 100}, {"max_tokens": 100}, id="under-cap-kept"),
        pytest.param(
            {"max_completion_tokens": 9999}, {"max_completion_tokens": 256}, id="completion-clamped"
        ),
    ],
)
def test_token_budget_is_clamped(
    make_client: MakeClient,
    fake_upstream: FakeOpenAI,
    asked: dict[str, int],
    sent: dict[str, int],
) -> None:
    make_client(max_tokens=256).post(CHAT, json=chat_body(**asked))
    received = fake_upstream.received[0].json
    assert {key: received[key] for key in sent} == sent


@pytest.mark.parametrize(
    ("default", "asked", "sent"),
    [
        pytest.param(None, {}, None, id="no-default-none-sent"),
        pytest.param(0.0, {}, 0.0, id="default-when-absent"),
        pytest.param(0.0, {"temperature": 0.7}, 0.7, id="client-value-kept"),
    ],
)
def test_default_temperature_fills_only_an_unset_one(
    make_client: MakeClient,
    fake_upstream: FakeOpenAI,
    default: float | None,
    asked: dict[str, float],
    sent: float | None,
) -> None:
    make_client(default_temperature=default).post(CHAT, json=chat_body(**asked))
    assert fake_upstream.received[0].json.get("temperature") == sent


def test_non_streaming_answer_is_passed_on_unchanged(
    client: TestClient, fake_upstream: FakeOpenAI
) -> None:
    reply = completion_reply("The answer is 42.")
    fake_upstream.script(reply)
    response = client.post(CHAT, json=chat_body())
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == reply.body


def test_stream_events_arrive_in_upstream_order(
    client: TestClient, fake_upstream: FakeOpenAI
) -> None:
    tokens = [f"tok{i} " for i in range(30)]
    reply = stream_reply(tokens)
    fake_upstream.script(reply)
    response = client.post(CHAT, json=chat_body(stream=True))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.content == b"".join(reply.chunks or [])
    contents = [
        p["choices"][0]["delta"].get("content") for p in sse_payloads(response.content)[:-1]
    ]
    assert contents[1:-1] == tokens


def test_streamed_tool_call_is_passed_on(client: TestClient, fake_upstream: FakeOpenAI) -> None:
    reply = tool_call_stream_reply("print(1 + 1)")
    fake_upstream.script(reply)
    response = client.post(CHAT, json=chat_body(stream=True, tools=TOOLS))
    payloads = sse_payloads(response.content)
    arguments = "".join(
        p["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for p in payloads[:2]
    )
    assert json.loads(arguments) == {"code": "print(1 + 1)"}
    assert payloads[2]["choices"][0]["finish_reason"] == "tool_calls"
    assert response.content.endswith(DONE)
