"""Upstream connections spread over several small httpcore pools.

httpcore's pool looks at every connection it holds on each request and each response close (and
polls the socket of every idle one), so the cost of opening or ending one stream grows with the
number of live streams. At 500 streams that was a third of the proxy's CPU, and seconds of delay
before the first byte. Here a request goes to the first pool with room, so at low load everything
shares pool 0 and its keep-alive connections exactly as one pool would, and under load no pool
holds more than `shard_size` connections.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable

import httpx

SHARD_SIZE = 32


class ReleasingStream(httpx.AsyncByteStream):
    """The response body as the pool gave it, plus a callback run once when it is closed."""

    def __init__(self, inner: httpx.AsyncByteStream, release: Callable[[], None]) -> None:
        self.inner = inner
        self.release: Callable[[], None] | None = release

    def __aiter__(self) -> AsyncIterator[bytes]:
        # The inner iterator itself, not a generator around it: no extra layer per chunk.
        return self.inner.__aiter__()

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            if self.release is not None:
                self.release()
                self.release = None


class ShardedTransport(httpx.AsyncBaseTransport):
    """Enough `httpx.AsyncHTTPTransport`s of `shard_size` connections for `max_connections`."""

    def __init__(
        self, max_connections: int, *, shard_size: int = SHARD_SIZE, trust_env: bool = True
    ) -> None:
        count = max(1, math.ceil(max_connections / shard_size))
        limits = httpx.Limits(max_connections=shard_size)
        # One TLS context for all: each one loads the CA bundle, a few hundred kB apiece.
        tls = httpx.create_ssl_context(trust_env=trust_env)
        self.shard_size = shard_size
        self.shards = [
            httpx.AsyncHTTPTransport(verify=tls, limits=limits, trust_env=trust_env)
            for _ in range(count)
        ]
        self.active = [0] * count  # requests sent and not yet closed, per shard

    def pick(self) -> int:
        """The first shard with room; when all are full, the least busy (it queues there)."""
        for index, active in enumerate(self.active):
            if active < self.shard_size:
                return index
        return min(range(len(self.active)), key=self.active.__getitem__)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index = self.pick()
        self.active[index] += 1
        try:
            response = await self.shards[index].handle_async_request(request)
        except BaseException:
            self.active[index] -= 1
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)

        def release() -> None:
            self.active[index] -= 1

        response.stream = ReleasingStream(response.stream, release)
        return response

    async def aclose(self) -> None:
        for shard in self.shards:
            await shard.aclose()
