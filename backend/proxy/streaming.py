"""A streaming response that notices a browser disconnect at once and always cleans up.

Starlette's StreamingResponse, on ASGI servers of spec 2.4+, only learns of a disconnect when its
next write fails; while a model is thinking nothing is written, and the upstream request would run
on. Here the disconnect is awaited alongside the stream, and `on_close` (close the upstream
response, free the stream slot) runs however the response ends, even if it never started.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


class RelayResponse(StreamingResponse):
    def __init__(
        self, chunks: AsyncIterator[bytes], on_close: Callable[[], Awaitable[None]]
    ) -> None:
        super().__init__(chunks, media_type="text/event-stream", headers=SSE_HEADERS)
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:

                async def stream() -> None:
                    # OSError: the client went away mid-write; on_close does the rest.
                    with contextlib.suppress(OSError):
                        await self.stream_response(send)
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self.on_close()
