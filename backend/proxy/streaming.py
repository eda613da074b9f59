"""A streaming response that notices a browser disconnect at once and always cleans up.

Starlette's StreamingResponse, on ASGI servers of spec 2.4+, only learns of a disconnect when its
next write fails; while a model is thinking nothing is written, and the upstream request would run
on. Here the disconnect is awaited alongside the stream, and `on_close` (close the upstream
response, free the stream slot) runs however the response ends, even if it never started.

Reading the upstream and writing to the browser are two tasks joined by a Coalescer, so a
writer that falls behind sends what has piled up in one write rather than one per chunk.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from backend.proxy.coalesce import Coalescer

SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


class RelayResponse(StreamingResponse):
    """Relays `chunks` as server-sent events (a StreamingResponse for its headers and type)."""

    def __init__(
        self, chunks: AsyncIterator[bytes], on_close: Callable[[], Awaitable[None]]
    ) -> None:
        super().__init__(chunks, media_type="text/event-stream", headers=SSE_HEADERS)
        self.chunks = chunks
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:
                buffer = Coalescer()
                group.start_soon(self.read, buffer)
                group.start_soon(self.watch_disconnect, receive, group.cancel_scope)
                # OSError: the client went away mid-write; on_close does the rest.
                with contextlib.suppress(OSError):
                    await self.write(buffer, send)
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self.on_close()

    async def read(self, buffer: Coalescer) -> None:
        try:
            async for chunk in self.chunks:
                await buffer.put(chunk)
        finally:
            buffer.end()

    async def write(self, buffer: Coalescer, send: Send) -> None:
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        while (data := await buffer.take()) is not None:
            await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def watch_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        scope.cancel()
