"""Dependency aliases, so routes say what they need and tests can override it.

Every provider here is `async def` although none of them waits: FastAPI runs a plain `def`
dependency in its thread pool, a thread hop per dependency per request, and under a few hundred
concurrent streams that pool (40 threads) became a queue in front of every request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from backend.lifespan import ProxyState, settings_of
from backend.settings import Settings


async def current_settings(request: Request) -> Settings:
    """`get_settings()`, or what `app.dependency_overrides[get_settings]` puts in its place."""
    return settings_of(request.app)


async def get_proxy(request: Request) -> ProxyState:
    # One dependency for the three: each one FastAPI resolves costs ~3% of a stream's start-up CPU.
    proxy: ProxyState = request.state.proxy
    return proxy


SettingsDep = Annotated[Settings, Depends(current_settings)]
ProxyDep = Annotated[ProxyState, Depends(get_proxy)]
