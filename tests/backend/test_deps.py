"""The dependency providers stay off FastAPI's thread pool, and settings overrides still apply."""

from __future__ import annotations

import inspect

import pytest
from fastapi import APIRouter
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from backend import deps
from backend.routes import chat


def provider_calls(route: APIRoute) -> set[object]:
    calls: set[object] = set()
    pending = list(route.dependant.dependencies)
    while pending:
        dependant = pending.pop()
        calls.add(dependant.call)
        pending.extend(dependant.dependencies)
    return calls


@pytest.mark.parametrize("router", [pytest.param(chat.router, id="chat")])
def test_route_providers_from_deps_are_coroutines(router: APIRouter) -> None:
    route = next(r for r in router.routes if isinstance(r, APIRoute))
    ours = {
        call for call in provider_calls(route) if getattr(call, "__module__", "") == deps.__name__
    }
    assert ours, "the chat route should use the providers in backend.deps"
    assert all(inspect.iscoroutinefunction(call) for call in ours)


def test_settings_override_reaches_the_routes(client: TestClient) -> None:
    # The `client` fixture overrides get_settings with models gpt-test and gpt-other.
    assert set(client.get("/api/config").json()["models"]) >= {"gpt-test", "gpt-other"}
