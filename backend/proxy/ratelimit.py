"""Per-client request budgets (the `limits` library) and a cap on concurrent streams.

The request budget lives in memory or in Redis (`WASMBOX_RATE_LIMIT_STORAGE=redis://…`), so several
backend processes behind one load balancer share one budget. Concurrent streams are counted per
process: a stream is a live connection to this process, and a crashed process must not leave
phantom streams behind in a shared store.
"""

from __future__ import annotations

import math
import time
from collections import Counter

from limits import RateLimitItem, parse_many
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from backend.proxy.errors import RateLimited

STREAM_RETRY_AFTER_S = 1


def open_storage(uri: str) -> Storage:
    # redis-py's asyncio client, so one Redis library serves both the sync and async worlds.
    options = {"implementation": "redispy"} if uri.startswith("redis") else {}
    storage = storage_from_string(f"async+{uri}", **options)
    assert isinstance(storage, Storage)
    return storage


class RequestBudget:
    """Refuses a client that has used up any of its windows ("30/minute;500/day")."""

    def __init__(self, storage: Storage, limits: str) -> None:
        self.items: list[RateLimitItem] = parse_many(limits) if limits else []
        self.limiter = MovingWindowRateLimiter(storage)

    async def spend(self, client: str) -> None:
        for item in self.items:
            if not await self.limiter.hit(item, "chat", client):
                stats = await self.limiter.get_window_stats(item, "chat", client)
                retry_after = math.ceil(stats.reset_time - time.time())
                raise RateLimited(f"rate limit reached ({item}); try again later", retry_after)


class StreamSlots:
    """How many streams each client has open in this process, with both caps enforced."""

    def __init__(self, per_client: int, total: int) -> None:
        self.per_client = per_client
        self.total = total
        self.open: Counter[str] = Counter()
        self.open_total = 0

    def acquire(self, client: str) -> None:
        if self.open[client] >= self.per_client:
            raise RateLimited("too many concurrent streams from this client", STREAM_RETRY_AFTER_S)
        if self.open_total >= self.total:
            raise RateLimited("the server is at its stream capacity", STREAM_RETRY_AFTER_S)
        self.open[client] += 1
        self.open_total += 1

    def release(self, client: str) -> None:
        self.open_total -= 1
        self.open[client] -= 1
        if self.open[client] <= 0:
            del self.open[client]
