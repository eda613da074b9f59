"""What lives as long as the app: one shared HTTP client to the LLM, and the rate-limit state."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from backend.proxy.pool import ShardedTransport
from backend.proxy.ratelimit import RequestBudget, StreamSlots, open_storage
from backend.settings import Settings, get_settings

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[dict[str, Any]]]


def settings_of(app: FastAPI) -> Settings:
    """The settings the routes see, honouring `app.dependency_overrides` (tests)."""
    provider: Callable[[], Settings] = app.dependency_overrides.get(get_settings, get_settings)
    return provider()


def upstream_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None
) -> httpx.AsyncClient:
    timeout = httpx.Timeout(
        settings.upstream_read_timeout_s, connect=settings.upstream_connect_timeout_s
    )
    # One connection per live stream, so the pool must not queue streams behind each other.
    # trust_env=False: no proxy variables or .netrc may reroute or re-authenticate the key's calls.
    if transport is None:
        transport = ShardedTransport(settings.max_streams_total + 64, trust_env=False)
    return httpx.AsyncClient(transport=transport, timeout=timeout, trust_env=False)


def lifespan_for(transport: httpx.AsyncBaseTransport | None) -> Lifespan:
    """A lifespan whose upstream client uses `transport` (tests pass an httpx.MockTransport)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        settings = settings_of(app)
        storage = open_storage(settings.rate_limit_storage)
        if not await storage.check():
            raise RuntimeError("the rate-limit storage cannot be reached")
        async with upstream_client(settings, transport) as client:
            yield {
                "upstream": client,
                "budget": RequestBudget(storage, settings.rate_limit),
                "slots": StreamSlots(settings.max_streams_per_client, settings.max_streams_total),
            }

    return lifespan
