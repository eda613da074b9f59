"""`wasmbox serve` refuses to expose the key on a public interface unless told so."""

from __future__ import annotations

from typing import Any

import pytest

from backend import cli

PUBLIC = "0.0.0.0"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> list[dict[str, Any]]:
    """Calls to uvicorn.run, which is replaced; a built runtime is faked."""
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append(kw))
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
    assert started == [{"host": host, "port": 8123, "log_level": "warning"}]


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
