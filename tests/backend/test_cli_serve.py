"""`wasmbox serve` refuses to expose the key on a public interface unless told so."""

from __future__ import annotations

import os
from typing import Any

import pytest

from backend import commands
from wasm_runtime import cli

PUBLIC = "0.0.0.0"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> list[dict[str, Any]]:
    """Calls to uvicorn.run, which is replaced; a built runtime is faked."""
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append({"app": app, **kw}))
    (tmp_path / "manifest.json").write_text("{}")
    monkeypatch.setenv("WASMBOX_RUNTIME_DIR", str(tmp_path))
    return calls


@pytest.mark.parametrize(
    "host",
    [
        pytest.param("127.0.0.1", id="ipv4-loopback"),
        pytest.param("::1", id="ipv6-loopback"),
        pytest.param("localhost", id="localhost"),
    ],
)
def test_loopback_is_served(started: list[dict[str, Any]], host: str) -> None:
    assert cli.main(["serve", "--host", host, "--port", "8123"]) == 0
    assert started == [
        {
            "app": "backend.app:create_app",
            "factory": True,
            "host": host,
            "port": 8123,
            "workers": 1,
            "log_level": "warning",
        }
    ]


@pytest.mark.parametrize(
    "host", [pytest.param(PUBLIC, id="any"), pytest.param("example.org", id="hostname")]
)
def test_public_host_without_token_is_refused(started: list[dict[str, Any]], host: str) -> None:
    assert cli.main(["serve", "--host", host]) == 2
    assert started == []


@pytest.mark.parametrize(
    ("env", "args"),
    [
        pytest.param({"WASMBOX_ACCESS_TOKEN": "letmein"}, [], id="token"),
        pytest.param({"WASMBOX_ALLOW_PUBLIC": "true"}, [], id="env-allow"),
        pytest.param({}, ["--allow-public"], id="flag-allow"),
    ],
)
def test_public_host_is_served_when_told_so(
    started: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    args: list[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cli.main(["serve", "--host", PUBLIC, *args]) == 0
    assert len(started) == 1


def test_the_factory_named_for_workers_builds_the_app() -> None:
    from importlib import import_module

    from fastapi import FastAPI

    module, name = commands.APP_FACTORY.split(":")
    assert isinstance(getattr(import_module(module), name)(), FastAPI)


def test_workers_flag_is_passed_on(started: list[dict[str, Any]]) -> None:
    assert cli.main(["serve", "--workers", "3"]) == 0
    assert started[0]["workers"] == 3


def test_redis_budget_defaults_to_one_worker_per_cpu(
    started: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WASMBOX_RATE_LIMIT_STORAGE", "redis://127.0.0.1:6379")
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert cli.main(["serve"]) == 0
    assert started[0]["workers"] == 6


def test_memory_budget_defaults_to_one_worker(
    started: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert cli.main(["serve"]) == 0
    assert started[0]["workers"] == 1


def test_zero_workers_is_refused(started: list[dict[str, Any]]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["serve", "--workers", "0"])
    assert started == []
