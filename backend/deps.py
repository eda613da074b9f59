"""Dependency aliases, so routes say what they need and tests can override it."""

from __future__ import annotations

from typing import Annotated

import httpx
from fastapi import Depends, Request

from backend.proxy.ratelimit import RequestBudget, StreamSlots
from backend.settings import Settings, get_settings


def get_upstream(request: Request) -> httpx.AsyncClient:
    client: httpx.AsyncClient = request.state.upstream
    return client


def get_budget(request: Request) -> RequestBudget:
    budget: RequestBudget = request.state.budget
    return budget


def get_slots(request: Request) -> StreamSlots:
    slots: StreamSlots = request.state.slots
    return slots


SettingsDep = Annotated[Settings, Depends(get_settings)]
UpstreamDep = Annotated[httpx.AsyncClient, Depends(get_upstream)]
BudgetDep = Annotated[RequestBudget, Depends(get_budget)]
SlotsDep = Annotated[StreamSlots, Depends(get_slots)]
