"""Dependency aliases, so routes say what they need and tests can override it.

Every provider here is `async def` although none of them waits: FastAPI runs a plain `def`
dependency in its thread pool, a thread hop per dependency per request, and under a few hundred
concurrent streams that pool (40 threads) became a queue in front of every request.
"""

from __future__ import annotations

from typing import Annotated

import httpx
from fastapi import Depends, Request

from backend.lifespan import settings_of
from backend.proxy.ratelimit import RequestBudget, StreamSlots
from backend.settings import Settings


async def current_settings(request: Request) -> Settings:
    """`get_settings()`, or what `app.dependency_overrides[get_settings]` puts in its place."""
    return settings_of(request.app)


async def get_upstream(request: Request) -> httpx.AsyncClient:
    client: httpx.AsyncClient = request.state.upstream
    return client


async def get_budget(request: Request) -> RequestBudget:
    budget: RequestBudget = request.state.budget
    return budget


async def get_slots(request: Request) -> StreamSlots:
    slots: StreamSlots = request.state.slots
    return slots


SettingsDep = Annotated[Settings, Depends(current_settings)]
UpstreamDep = Annotated[httpx.AsyncClient, Depends(get_upstream)]
BudgetDep = Annotated[RequestBudget, Depends(get_budget)]
SlotsDep = Annotated[StreamSlots, Depends(get_slots)]
