"""A streaming response that notices a browser disconnect at once and always cleans up.

Starlette's StreamingResponse, on ASGI servers of spec 2.4+, only learns of a disconnect when its
next write fails; while a model is thinking nothing is written, and the upstream request would run
on. Here the disconnect is awaited alongside the stream, and `on_close` (close the upstream
response, free the stream slot) runs however the response ends, even if it never started.

Each chunk is written as soon as it is read, in one task: a hand-over to a second task cost more
than the write itself. A writer that falls behind still sends what piled up in one write, because
each read takes everything the upstream connection has buffered (see proxy/transport.py), and a
browser that stops reading holds the upstream back through the server's flow control.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

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
                group.start_soon(self.watch_disconnect, receive, group.cancel_scope)
                # OSError: the client went away mid-write; on_close does the rest.
                with contextlib.suppress(OSError):
                    await self.relay(send)
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self.on_close()

    async def relay(self, send: Send) -> None:
        start = {"type": "http.response.start", "status": self.status_code}
        await send({**start, "headers": self.raw_headers})
        async for chunk in self.chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def watch_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        scope.cancel()
