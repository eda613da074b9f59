"""Fixtures for the backend tests: a fake upstream, settings, and the app in front of it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from backend.app import create_app
from backend.settings import Settings, get_settings
from tests.support.fake_openai import FakeOpenAI, LoopbackServer

API_KEY = "sk-test-SECRET-do-not-leak-1234567890"
MODEL = "gpt-test"
CHAT = "/api/chat/completions"


def chat_body(**fields: Any) -> dict[str, Any]:
    return {"model": MODEL, "messages": [{"role": "user", "content": "Hi"}], **fields}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own OPENAI_*/WASMBOX_* variables must not change what the tests see."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "WASMBOX_")):
            monkeypatch.delenv(name)
    get_settings.cache_clear()


@pytest.fixture
def fake_upstream() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


MakeSettings = Callable[..., Settings]


@pytest.fixture
def make_settings(fake_upstream: FakeOpenAI) -> MakeSettings:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "openai_api_key": API_KEY,
            "openai_base_url": fake_upstream.base_url,
            "models": [MODEL, "gpt-other"],
            "rate_limit": "1000/minute",
            "upstream_read_timeout_s": 5.0,
        }
        return Settings(**(values | overrides))

    return make


def app_with(settings: Settings, transport: httpx.AsyncBaseTransport | None = None) -> FastAPI:
    app = create_app(upstream_transport=transport)
    app.dependency_overrides[get_settings] = lambda: settings
    return app


MakeClient = Callable[..., TestClient]


@pytest.fixture
def make_client(make_settings: MakeSettings) -> Iterator[MakeClient]:
    """A TestClient (lifespan started) for the app with these setting overrides."""
    clients: list[TestClient] = []

    def make(transport: httpx.AsyncBaseTransport | None = None, **overrides: Any) -> TestClient:
        client = TestClient(app_with(make_settings(**overrides), transport))
        clients.append(client.__enter__())
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()


@pytest.fixture
def live_proxy(make_settings: MakeSettings) -> Iterator[Callable[..., str]]:
    """The app served by uvicorn on loopback (real disconnects); returns its base URL."""
    servers: list[LoopbackServer] = []

    def start(**overrides: Any) -> str:
        server = LoopbackServer(app_with(make_settings(**overrides))).start()
        servers.append(server)
        return server.url

    yield start
    for server in servers:
        server.stop()
