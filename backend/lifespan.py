"""What lives as long as the app: one connection pool to the LLM, and the rate-limit state."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from fastapi import FastAPI

from backend.proxy.ratelimit import RequestBudget, StreamSlots, open_storage
from backend.proxy.transport import AiohttpTransport
from backend.proxy.upstream import Upstream
from backend.settings import Settings, get_settings

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[dict[str, Any]]]


def settings_of(app: FastAPI) -> Settings:
    """The settings the routes see, honouring `app.dependency_overrides` (tests)."""
    provider: Callable[[], Settings] = app.dependency_overrides.get(get_settings, get_settings)
    return provider()


@dataclass(frozen=True)
class ProxyState:
    """What every proxied request shares: the LLM connections, the budgets, the stream slots."""

    upstream: Upstream
    budget: RequestBudget
    slots: StreamSlots


def open_upstream(settings: Settings, transport: httpx.AsyncBaseTransport | None) -> Upstream:
    # One connection per live stream, so the pool must not queue streams behind each other.
    if transport is None:
        transport = AiohttpTransport(settings.max_streams_total + 64)
    return Upstream(settings, transport)


def lifespan_for(transport: httpx.AsyncBaseTransport | None) -> Lifespan:
    """A lifespan whose upstream client uses `transport` (tests pass an httpx.MockTransport)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[dict[str, Any]]:
        settings = settings_of(app)
        storage = open_storage(settings.rate_limit_storage)
        if not await storage.check():
            raise RuntimeError("the rate-limit storage cannot be reached")
        upstream = open_upstream(settings, transport)
        try:
            slots = StreamSlots(settings.max_streams_per_client, settings.max_streams_total)
            budget = RequestBudget(storage, settings.rate_limit)
            yield {"proxy": ProxyState(upstream, budget, slots)}
        finally:
            await upstream.aclose()

    return lifespan
