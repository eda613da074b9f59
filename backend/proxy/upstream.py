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


def build_request(
    client: httpx.AsyncClient, settings: Settings, body: dict[str, Any]
) -> httpx.Request:
    headers = {"Accept": "text/event-stream" if body.get("stream") else "application/json"}
    if settings.openai_api_key is not None:
        headers["Authorization"] = f"Bearer {settings.openai_api_key.get_secret_value()}"
    return client.build_request(
        "POST", f"{settings.upstream_base_url}/chat/completions", json=body, headers=headers
    )


async def send(
    client: httpx.AsyncClient, request: httpx.Request, *, stream: bool, retries: int
) -> httpx.Response:
    for attempt in range(retries + 1):
        try:
            return await client.send(request, stream=stream)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            log.warning("upstream connect failed (%s), attempt %d", type(exc).__name__, attempt + 1)
            if attempt < retries:
                await anyio.sleep(RETRY_BACKOFF_S * (attempt + 1))
        except httpx.HTTPError as exc:
            raise transport_error(exc) from None
    raise UpstreamUnreachable("could not connect to the LLM server")


async def complete(client: httpx.AsyncClient, settings: Settings, body: dict[str, Any]) -> bytes:
    """A non-streaming completion: the upstream JSON, checked to be JSON, as bytes."""
    request = build_request(client, settings, body)
    response = await send(client, request, stream=False, retries=settings.upstream_connect_retries)
    if response.status_code >= 400:
        raise status_error(response.status_code)
    try:
        json.loads(response.content)
    except ValueError:
        raise UpstreamMalformed("the LLM server's answer is not JSON") from None
    return response.content


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient, settings: Settings, body: dict[str, Any]
) -> AsyncIterator[AsyncIterator[bytes]]:
    """An upstream SSE stream whose first chunk has arrived, so early failures get a status code."""
    request = build_request(client, settings, body)
    response = await send(client, request, stream=True, retries=settings.upstream_connect_retries)
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
        yield relay(first, chunks)
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


async def relay(first: bytes, chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """Chunks as they arrive; a failure mid-stream ends it with an SSE error event."""
    yield first
    try:
        async for chunk in chunks:
            yield chunk
    except httpx.HTTPError as exc:
        error: ProxyError = transport_error(exc)
        log.warning("upstream stream failed: %s", error.kind)
        yield sse_error_event(error)
