"""Each upstream failure becomes one clear JSON error; nothing upstream said is passed on."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.backend.conftest import API_KEY, CHAT, MakeClient, chat_body
from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    error_reply,
    stream_reply,
)

LEAKY = f"Incorrect API key provided: {API_KEY}; your prompt was: my secret prompt"


def failing_transport(exc: Exception, calls: list[httpx.Request]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise exc

    return httpx.MockTransport(handler)


@pytest.mark.parametrize(
    ("exc", "status", "kind", "attempts"),
    [
        pytest.param(httpx.ConnectError("refused"), 502, "upstream_unreachable", 3, id="connect"),
        pytest.param(
            httpx.ConnectTimeout("slow"), 502, "upstream_unreachable", 3, id="connect-slow"
        ),
        pytest.param(httpx.ReadTimeout("slow"), 504, "upstream_timeout", 1, id="read-timeout"),
        pytest.param(httpx.ReadError("reset"), 502, "upstream_error", 1, id="read-error"),
        pytest.param(httpx.RemoteProtocolError("eof"), 502, "upstream_malformed", 1, id="protocol"),
    ],
)
@pytest.mark.parametrize("stream", [pytest.param(False, id="json"), pytest.param(True, id="sse")])
def test_transport_failures_map_to_json_errors(
    make_client: MakeClient,
    exc: Exception,
    status: int,
    kind: str,
    attempts: int,
    stream: bool,
) -> None:
    calls: list[httpx.Request] = []
    client = make_client(failing_transport(exc, calls), upstream_connect_retries=2)
    response = client.post(CHAT, json=chat_body(stream=stream))
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["type"] == kind
    assert len(calls) == attempts  # retried only when nothing could have been sent


def test_connect_error_then_success_is_retried(make_client: MakeClient) -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ConnectError("refused")
        return httpx.Response(200, json={"choices": []})

    client = make_client(httpx.MockTransport(handler), upstream_connect_retries=1)
    assert client.post(CHAT, json=chat_body()).status_code == 200
    assert len(calls) == 2
    assert calls[0].content == calls[1].content


@pytest.mark.parametrize(
    ("upstream_status", "reason"),
    [
        pytest.param(400, "refused the request", id="400"),
        pytest.param(401, "API key", id="401"),
        pytest.param(404, "model", id="404"),
        pytest.param(429, "rate limiting", id="429"),
        pytest.param(500, "failed", id="500"),
        pytest.param(503, "failed", id="503"),
    ],
)
@pytest.mark.parametrize("stream", [pytest.param(False, id="json"), pytest.param(True, id="sse")])
def test_upstream_http_errors_are_502_with_a_short_reason(
    make_client: MakeClient,
    fake_upstream: FakeOpenAI,
    upstream_status: int,
    reason: str,
    stream: bool,
) -> None:
    fake_upstream.script(error_reply(upstream_status, LEAKY))
    response = make_client().post(CHAT, json=chat_body(stream=stream))
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["type"] == "upstream_status"
    assert reason in error["message"]
    assert f"HTTP {upstream_status}" in error["message"]
    assert API_KEY not in response.text
    assert "my secret prompt" not in response.text
    assert len(fake_upstream.received) == 1  # an HTTP answer is never retried


def test_upstream_that_does_not_answer_in_time_is_504(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    fake_upstream.script(Reply(delay_s=3, body=b"{}"))
    response = make_client(upstream_read_timeout_s=0.3).post(CHAT, json=chat_body())
    assert response.status_code == 504
    assert response.json()["error"]["type"] == "upstream_timeout"


@pytest.mark.parametrize(
    ("reply", "stream"),
    [
        pytest.param(Reply(body=b"<html>oops</html>"), False, id="json-not-json"),
        pytest.param(Reply(body=b"data: {}\n\n"), True, id="sse-wrong-content-type"),
        pytest.param(Reply(chunks=[], content_type="text/event-stream"), True, id="sse-empty"),
    ],
)
def test_malformed_upstream_answers_are_502(
    make_client: MakeClient, fake_upstream: FakeOpenAI, reply: Reply, stream: bool
) -> None:
    fake_upstream.script(reply)
    response = make_client().post(CHAT, json=chat_body(stream=stream))
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "upstream_malformed"


def test_stream_broken_midway_ends_with_an_error_event(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    reply = stream_reply(["a", "b", "c", "d"])
    reply.break_after = 3
    fake_upstream.script(reply)
    response = make_client().post(CHAT, json=chat_body(stream=True))
    assert response.status_code == 200
    sent = b"".join((reply.chunks or [])[:3])
    assert response.content.startswith(sent)
    last_event = response.content[len(sent) :].strip()
    assert last_event.startswith(b"data: ")
    assert json.loads(last_event[len(b"data: ") :])["error"]["type"] == "upstream_malformed"


def test_stream_stalled_midway_ends_with_a_timeout_event(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    fake_upstream.script(stream_reply(["a", "b"], chunk_delay_s=1.0))
    response = make_client(upstream_read_timeout_s=0.3).post(CHAT, json=chat_body(stream=True))
    assert response.status_code == 200
    last_event = response.content.strip().rsplit(b"\n\n", 1)[-1]
    assert json.loads(last_event[len(b"data: ") :])["error"]["type"] == "upstream_timeout"


def test_stream_of_keep_alives_only_ends_with_a_timeout_event(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    # llama.cpp's server pings every 15 s while the model is stuck: each ping resets the socket's
    # read timeout, so only a timeout on data (not comments) shows the stall.
    reply = stream_reply(["a"], chunk_delay_s=0.1)
    pings = [b": ping - 2026-11-23 11:00:00.000000\r\n\r\n"] * 40
    reply.chunks = [*(reply.chunks or [])[:1], *pings, *(reply.chunks or [])[1:]]
    fake_upstream.script(reply)
    response = make_client(upstream_read_timeout_s=1.0).post(CHAT, json=chat_body(stream=True))
    assert response.status_code == 200
    assert response.content.startswith((reply.chunks or [])[0])
    last_event = response.content.strip().rsplit(b"\n\n", 1)[-1]
    error = json.loads(last_event[len(b"data: ") :])["error"]
    assert error["type"] == "upstream_timeout"
    assert "keep-alive" in error["message"]
    assert b"[DONE]" not in response.content


def test_keep_alives_between_data_do_not_end_a_stream(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    reply = stream_reply(["a", "b", "c"], chunk_delay_s=0.05)
    ping = b": ping\r\n\r\n"
    reply.chunks = [piece for chunk in reply.chunks or [] for piece in (chunk, ping)]
    fake_upstream.script(reply)
    response = make_client(upstream_read_timeout_s=5.0).post(CHAT, json=chat_body(stream=True))
    assert b"upstream_timeout" not in response.content
    assert b"[DONE]" in response.content
