"""A fake OpenAI-compatible server on loopback, for the proxy tests, web-app tests and benchmarks.

Real HTTP (uvicorn on 127.0.0.1, a free port, its own thread), so the code under test goes through
its real network stack. It answers `POST /v1/chat/completions` with scripted replies (JSON, SSE
streams, tool calls, HTTP errors, stalls, broken streams), records every request it received, and
notices when a client goes away in the middle of a stream.

    with FakeOpenAI() as fake:
        fake.script(stream_reply(["Hel", "lo"]))
        ...  # point OPENAI_BASE_URL at fake.base_url
        assert fake.received[0].json["model"] == "gpt-test"
        assert fake.disconnected.wait(5)

Run alone (`python -m tests.support.fake_openai --port 9000 --tokens 200 --delay-ms 5`) it streams
that many tokens to every request, each token the monotonic time it was sent; the benchmark uses
it that way.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import uvicorn
from starlette.types import Receive, Scope, Send

DONE = b"data: [DONE]\n\n"
STAMP = b"@STAMP@"  # see Reply.stamp: lets a benchmark measure each chunk's latency


@dataclass
class Received:
    """One request as the fake saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    """What the fake answers. `chunks` makes it a stream, sent one write per chunk."""

    status: int = 200
    body: bytes = b""
    chunks: list[bytes] | None = None
    content_type: str = "application/json"
    delay_s: float = 0.0  # before the status line: long enough and the client times out
    chunk_delay_s: float = 0.0
    break_after: int | None = None  # drop the connection after this many chunks
    stamp: bool = False  # replace STAMP in each chunk with time.monotonic_ns() as it is sent
    headers: dict[str, str] = field(default_factory=dict)  # more response headers


def sse(payload: Any) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def chunk(delta: dict[str, Any], model: str = "gpt-test", finish: str | None = None) -> bytes:
    return sse(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def json_reply(payload: Any, status: int = 200) -> Reply:
    return Reply(status=status, body=json.dumps(payload).encode())


def completion_reply(text: str = "Hello!", model: str = "gpt-test") -> Reply:
    return json_reply(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


def stream_reply(tokens: list[str], chunk_delay_s: float = 0.0, model: str = "gpt-test") -> Reply:
    chunks = [chunk({"role": "assistant", "content": ""}, model)]
    chunks += [chunk({"content": token}, model) for token in tokens]
    chunks += [chunk({}, model, finish="stop"), DONE]
    return Reply(chunks=chunks, content_type="text/event-stream", chunk_delay_s=chunk_delay_s)


def tool_call_stream_reply(
    code: str, name: str = "run_python", model: str = "gpt-test", chunk_delay_s: float = 0.0
) -> Reply:
    """A streamed `run_python` tool call whose JSON arguments arrive in two pieces."""
    arguments = json.dumps({"code": code})
    half = len(arguments) // 2
    call = {"index": 0, "id": "call_fake", "type": "function"}
    chunks = [
        chunk({"role": "assistant", "content": None, "tool_calls": [
            {**call, "function": {"name": name, "arguments": arguments[:half]}}
        ]}, model),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[half:]}}]}, model),
        chunk({}, model, finish="tool_calls"),
        DONE,
    ]  # fmt: skip
    return Reply(chunks=chunks, content_type="text/event-stream", chunk_delay_s=chunk_delay_s)


def tool_call_completion_reply(code: str, model: str = "gpt-test") -> Reply:
    """A non-streamed `run_python` tool call with `content: null`, as llama-cpp-python sends it."""
    function = {"name": "run_python", "arguments": json.dumps({"code": code})}
    call = {"id": "call_0", "type": "function", "function": function}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return json_reply(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        }
    )


def ollama_tool_call_stream_reply(code: str) -> Reply:
    """A tool call as older Ollama streams it: whole, in one chunk, no `index`, `content: ""`."""
    function = {"name": "run_python", "arguments": json.dumps({"code": code})}
    call = {"id": "call_abc", "type": "function", "function": function}
    chunks = [
        chunk({"role": "assistant", "content": "", "tool_calls": [call]}),
        chunk({"role": "assistant", "content": ""}, finish="tool_calls"),
        DONE,
    ]
    return Reply(chunks=chunks, content_type="text/event-stream")


def vllm_tool_call_stream_reply(code: str) -> Reply:
    """A tool call as some vLLM versions stream it: no id, the name repeated, `content: null`."""
    arguments = json.dumps({"code": code})
    named = {"index": 0, "type": "function", "function": {"name": "run_python", "arguments": ""}}
    more = {"index": 0, "function": {"name": "run_python", "arguments": arguments}}
    chunks = [
        chunk({"role": "assistant", "content": None, "tool_calls": [named]}),
        chunk({"content": None, "tool_calls": [more]}),
        chunk({"content": None}, finish="tool_calls"),
        DONE,
    ]
    return Reply(chunks=chunks, content_type="text/event-stream")


def empty_stream_reply() -> Reply:
    """An event stream with nothing in it: llama-cpp-python's answer to `stream` with `tools`."""
    return Reply(chunks=[], content_type="text/event-stream")


def cut_stream_reply(tokens: list[str]) -> Reply:
    """A stream whose connection drops after the tokens, before the model finished."""
    reply = stream_reply(tokens)
    reply.break_after = 1 + len(tokens)
    return reply


def hermes_reply(code: str) -> Reply:
    """A call written as text in the Hermes/Qwen `<tool_call>` form."""
    call = json.dumps({"name": "run_python", "arguments": {"code": code}})
    return stream_reply(["<tool_call>\n", call[:10], call[10:], "\n</tool_call>"])


def functions_prefix_reply(code: str) -> Reply:
    """A call as text after `functions.run_python:`, as a small Qwen streamed it."""
    return stream_reply(["functions.run_python:\n", json.dumps({"code": code})])


def error_reply(status: int, message: str = "upstream says no") -> Reply:
    return json_reply({"error": {"message": message, "type": "fake_error"}}, status=status)


def default_reply(request: Any) -> Reply:
    if isinstance(request, dict) and request.get("stream"):
        return stream_reply(["Hello", ", ", "world", "!"])
    return completion_reply()


class FakeOpenAI:
    """The fake server. Use as a context manager, or call start() and stop()."""

    def __init__(self, default: Callable[[Any], Reply] = default_reply) -> None:
        self.default = default
        self.replies: deque[Reply] = deque()
        self.received: list[Received] = []
        self.disconnects = 0
        self.disconnected = threading.Event()
        self.completed = 0  # replies sent to the end
        # Ollama's: a 400 for an assistant message with `content: null` (before any scripted reply).
        self.refuse_null_content = False
        # The origin a browser page may call it from (CORS); None sends no CORS headers at all.
        self.cors_origin: str | None = None
        self.server = LoopbackServer(self.app)

    @property
    def base_url(self) -> str:
        """What OPENAI_BASE_URL should be set to."""
        return f"{self.server.url}/v1"

    def script(self, *replies: Reply) -> None:
        """Answer the next requests with these replies, in order, then with the default."""
        self.replies.extend(replies)

    def start(self) -> FakeOpenAI:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {key.decode().lower(): value.decode() for key, value in scope["headers"]}
        self.received.append(Received(scope["method"], scope["path"], headers, body))
        if scope["method"] == "OPTIONS" and self.cors_origin:
            await self.respond(Reply(status=204, headers=PREFLIGHT_ALLOWS), send)
            return
        if scope["method"] != "POST" or scope["path"] != "/v1/chat/completions":
            await self.respond(error_reply(404, "no such route"), send)
            return
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if self.refuse_null_content and has_null_content(request):
            await self.respond(error_reply(400, "invalid message content type: <nil>"), send)
            return
        reply = self.replies.popleft() if self.replies else self.default(request)
        await self.respond_watching(reply, receive, send)

    async def respond_watching(self, reply: Reply, receive: Receive, send: Send) -> None:
        """Respond while listening for the client's disconnect."""
        finished = False

        async def watch() -> None:
            message = await receive()
            # uvicorn also reports "disconnect" once a response is complete; that one is normal.
            if message["type"] == "http.disconnect" and not finished:
                self.disconnects += 1
                self.disconnected.set()
                group.cancel_scope.cancel()

        async def finish(message: dict[str, Any]) -> None:
            nonlocal finished
            if message["type"] == "http.response.body" and not message.get("more_body"):
                finished = True
            await send(message)

        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            await self.respond(reply, finish)
            self.completed += 1
            group.cancel_scope.cancel()

    async def respond(self, reply: Reply, send: Callable[[dict[str, Any]], Any]) -> None:
        await anyio.sleep(reply.delay_s)
        headers = [(b"content-type", reply.content_type.encode())]
        headers += [(name.encode(), value.encode()) for name, value in reply.headers.items()]
        if self.cors_origin:
            headers.append((b"access-control-allow-origin", self.cors_origin.encode()))
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        for index, piece in enumerate(reply.chunks or []):
            if reply.break_after is not None and index >= reply.break_after:
                raise ConnectionAbortedError("scripted: drop the connection mid-stream")
            if reply.stamp:
                piece = piece.replace(STAMP, str(time.monotonic_ns()).encode())
            await send({"type": "http.response.body", "body": piece, "more_body": True})
            await anyio.sleep(reply.chunk_delay_s)
        await send({"type": "http.response.body", "body": reply.body, "more_body": False})


PREFLIGHT_ALLOWS = {
    "access-control-allow-methods": "POST, GET",
    "access-control-allow-headers": "authorization, content-type",
}


def reported_stdout(content: str) -> str:
    """The stdout a run's report gives the model: JSON in a `tool` message, or, for a call written
    as text, `key: value` lines after "Result of run_python:" (multi-line values on their own)."""
    report = content.removeprefix("Result of run_python:\n")
    if report.startswith("{"):
        return str(json.loads(report).get("stdout", "")).strip()
    found = re.search(r"^stdout:(.*(?:\n(?![a-z_]+:).*)*)", report, re.M)
    return found.group(1).strip() if found else ""


def has_null_content(request: Any) -> bool:
    messages = request.get("messages", []) if isinstance(request, dict) else []
    return any(m.get("role") == "assistant" and m.get("content") is None for m in messages)


async def serve_lifespan(receive: Receive, send: Send) -> None:
    """Nothing to start or stop: acknowledge both."""
    while True:
        message = await receive()
        await send({"type": message["type"] + ".complete"})
        if message["type"] == "lifespan.shutdown":
            return


@dataclass
class LoopbackServer:
    """Any ASGI app served by uvicorn on 127.0.0.1 in a background thread."""

    app: Any
    port: int = 0
    log_level: str = "critical"
    server: uvicorn.Server | None = None
    thread: threading.Thread | None = None
    sock: socket.socket = field(default_factory=socket.socket)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def start(self, timeout_s: float = 10.0) -> LoopbackServer:
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", self.port))
        config = uvicorn.Config(
            self.app,
            interface="asgi3",  # a bound method would be taken for ASGI2
            log_level=self.log_level,
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the loopback server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        if self.server is not None and self.thread is not None:
            self.server.should_exit = True
            self.thread.join(timeout=10)
        self.sock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description="serve the fake OpenAI-compatible upstream")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=5.0)
    args = parser.parse_args()
    reply = stream_reply([STAMP.decode()] * args.tokens, chunk_delay_s=args.delay_ms / 1000)
    reply.stamp = True
    config = uvicorn.Config(
        FakeOpenAI(default=lambda _request: reply).app,
        host="127.0.0.1",
        port=args.port,
        interface="asgi3",
        log_level="warning",
        access_log=False,
        backlog=4096,
    )
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
