"""Talking to the configured OpenAI-compatible server.

The URL and key come from settings only; no header from the browser is passed on. httpx failures
become the proxy's own errors here, with messages written by us. A request is retried only when
the connection could not be made, so nothing can have reached the model twice.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx

from backend.proxy.errors import (
    ProxyError,
    UpstreamError,
    UpstreamMalformed,
    UpstreamStatus,
    UpstreamTimeout,
    UpstreamUnreachable,
    sse_error_event,
)
from backend.settings import Settings

log = logging.getLogger("wasmbox.proxy")

RETRY_BACKOFF_S = 0.2
STATUS_REASONS = {
    401: "the LLM server refused this server's API key",
    403: "the LLM server refused this server's API key",
    404: "the LLM server does not know this model or endpoint",
    429: "the LLM provider is rate limiting this server",
}


def status_error(status: int) -> UpstreamStatus:
    reason = STATUS_REASONS.get(status) or (
        "the LLM server failed" if status >= 500 else "the LLM server refused the request"
    )
    return UpstreamStatus(f"{reason} (HTTP {status})")


def transport_error(exc: httpx.HTTPError) -> UpstreamError:
    if isinstance(exc, httpx.TimeoutException):
        return UpstreamTimeout("the LLM server did not answer in time")
    if isinstance(exc, httpx.RemoteProtocolError):
        return UpstreamMalformed("the LLM server closed the connection mid-answer")
    return UpstreamError("the connection to the LLM server failed")


class Upstream:
    """The configured LLM server: its URL, headers and timeouts worked out once, and the transport
    (connection pool) every request shares.

    Requests go to the transport itself, not through an `httpx.AsyncClient`: a proxy holding the
    server's key must keep no cookies and follow no redirects, and skipping that layer also
    saves a fifth of the cost of starting a stream.
    """

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport) -> None:
        self.transport = transport
        self.url = httpx.URL(f"{settings.upstream_base_url}/chat/completions")
        self.headers = {"Content-Type": "application/json"}
        if settings.openai_api_key is not None:
            self.headers["Authorization"] = f"Bearer {settings.openai_api_key.get_secret_value()}"
        self.timeout = httpx.Timeout(
            settings.upstream_read_timeout_s, connect=settings.upstream_connect_timeout_s
        ).as_dict()
        self.idle_s = settings.upstream_read_timeout_s
        self.retries = settings.upstream_connect_retries

    def request(self, body: dict[str, Any]) -> httpx.Request:
        accept = "text/event-stream" if body.get("stream") else "application/json"
        return httpx.Request(
            "POST",
            self.url,
            headers={**self.headers, "Accept": accept},
            content=json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(),
            extensions={"timeout": self.timeout},
        )

    async def send(self, request: httpx.Request) -> httpx.Response:
        """The response, its body not yet read; connection failures retried, nothing else."""
        for attempt in range(self.retries + 1):
            try:
                return await self.transport.handle_async_request(request)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                log.warning(
                    "upstream connect failed (%s), attempt %d", type(exc).__name__, attempt + 1
                )
                if attempt < self.retries:
                    await anyio.sleep(RETRY_BACKOFF_S * (attempt + 1))
            except httpx.HTTPError as exc:
                raise transport_error(exc) from None
        raise UpstreamUnreachable("could not connect to the LLM server")

    async def aclose(self) -> None:
        await self.transport.aclose()


async def complete(upstream: Upstream, body: dict[str, Any]) -> bytes:
    """A non-streaming completion: the upstream JSON, checked to be JSON, as bytes."""
    response = await upstream.send(upstream.request(body))
    try:
        if response.status_code >= 400:
            raise status_error(response.status_code)
        try:
            content = await response.aread()
        except httpx.HTTPError as exc:
            raise transport_error(exc) from None
    finally:
        await response.aclose()
    try:
        json.loads(content)
    except ValueError:
        raise UpstreamMalformed("the LLM server's answer is not JSON") from None
    return content


@asynccontextmanager
async def open_stream(
    upstream: Upstream, body: dict[str, Any]
) -> AsyncIterator[AsyncIterator[bytes]]:
    """An upstream SSE stream whose first chunk has arrived, so early failures get a status code."""
    response = await upstream.send(upstream.request(body))
    try:
        if response.status_code >= 400:
            raise status_error(response.status_code)
        if not response.headers.get("content-type", "").startswith("text/event-stream"):
            raise UpstreamMalformed("the LLM server did not answer with an event stream")
        chunks = body_chunks(response)
        try:
            first = await anext(chunks)
        except StopAsyncIteration:
            raise UpstreamMalformed("the LLM server sent an empty stream") from None
        except httpx.HTTPError as exc:
            raise transport_error(exc) from None
        yield relay(first, chunks, upstream.idle_s)
    finally:
        # Shielded: on a browser disconnect this runs inside a cancelled scope.
        with anyio.CancelScope(shield=True):
            await response.aclose()


def body_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body as it arrives. Raw bytes (no decoder or re-chunking layer per chunk) unless the
    upstream compressed it, which the browser was never told about."""
    if response.headers.get("content-encoding", "identity") == "identity":
        return response.aiter_raw()
    return response.aiter_bytes()


async def relay(first: bytes, chunks: AsyncIterator[bytes], idle_s: float) -> AsyncIterator[bytes]:
    """Chunks as they arrive; a failure mid-stream ends it with an SSE error event, and so does a
    stream that carries no data for `idle_s`. Keep-alive comments (`: ping`, which llama.cpp's
    server sends every 15 s) are relayed but do not count: they would hide a stalled model from
    the socket's read timeout for ever."""
    yield first
    deadline = anyio.current_time() + idle_s
    try:
        while True:
            chunk: bytes | None = None
            with anyio.move_on_after(deadline - anyio.current_time()):
                try:
                    chunk = await anext(chunks)
                except StopAsyncIteration:
                    return
            if chunk is None:  # no yield inside the scope: the consumer runs while we are suspended
                log.warning("upstream stream stalled: only keep-alives for %.0f s", idle_s)
                stalled = f"the LLM server sent nothing but keep-alives for {idle_s:.0f} s"
                yield sse_error_event(UpstreamTimeout(stalled))
                return
            if carries_data(chunk):
                deadline = anyio.current_time() + idle_s
            yield chunk
    except httpx.HTTPError as exc:
        error: ProxyError = transport_error(exc)
        log.warning("upstream stream failed: %s", error.kind)
        yield sse_error_event(error)


def carries_data(chunk: bytes) -> bool:
    """False for a chunk of SSE comment lines only (a line starting with ':') or blank lines."""
    return any(line and not line.startswith(b":") for line in chunk.splitlines())
