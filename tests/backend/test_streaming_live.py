"""Streaming through a real server: chunks go out as they come, and a browser that leaves
cancels the upstream request."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

from tests.backend.conftest import CHAT, chat_body
from tests.support.fake_openai import FakeOpenAI, stream_reply

LiveProxy = Callable[..., str]


def test_first_chunk_arrives_before_the_upstream_is_done(
    live_proxy: LiveProxy, fake_upstream: FakeOpenAI
) -> None:
    fake_upstream.script(stream_reply(["a", "b", "c", "d"], chunk_delay_s=0.3))
    with (
        httpx.Client(base_url=live_proxy()) as client,
        client.stream("POST", CHAT, json=chat_body(stream=True)) as response,
    ):
        chunks = response.iter_bytes()  # kept: a dropped iterator closes the stream
        assert next(chunks).startswith(b"data: ")
        assert fake_upstream.completed == 0  # not buffered until the end
        rest = b"".join(chunks)
    assert rest.endswith(b"data: [DONE]\n\n")
    assert fake_upstream.completed == 1


def test_browser_disconnect_cancels_the_upstream_request(
    live_proxy: LiveProxy, fake_upstream: FakeOpenAI
) -> None:
    fake_upstream.script(stream_reply([f"t{i}" for i in range(100)], chunk_delay_s=0.1))
    with (
        httpx.Client(base_url=live_proxy()) as client,
        client.stream("POST", CHAT, json=chat_body(stream=True)) as response,
    ):
        next(response.iter_bytes())
    assert fake_upstream.disconnected.wait(timeout=10)
    assert fake_upstream.completed == 0


def test_disconnect_during_a_silent_upstream_is_noticed(
    live_proxy: LiveProxy, fake_upstream: FakeOpenAI
) -> None:
    """A model that is 'thinking' writes nothing; the leaving browser must still be noticed."""
    reply = stream_reply(["late"], chunk_delay_s=30)
    fake_upstream.script(reply)
    with (
        httpx.Client(base_url=live_proxy()) as client,
        client.stream("POST", CHAT, json=chat_body(stream=True)) as response,
    ):
        next(response.iter_bytes())
    assert fake_upstream.disconnected.wait(timeout=10)


def test_disconnect_frees_the_stream_slot(live_proxy: LiveProxy, fake_upstream: FakeOpenAI) -> None:
    fake_upstream.script(stream_reply([f"t{i}" for i in range(100)], chunk_delay_s=0.1))
    with httpx.Client(base_url=live_proxy(max_streams_per_client=1)) as client:
        with client.stream("POST", CHAT, json=chat_body(stream=True)) as response:
            next(response.iter_bytes())
        assert fake_upstream.disconnected.wait(timeout=10)
        statuses = []
        for _ in range(50):  # the slot is freed just after the upstream is closed
            statuses.append(client.post(CHAT, json=chat_body(stream=True)).status_code)
            if statuses[-1] == 200:
                break
            time.sleep(0.05)
        assert statuses[-1] == 200
