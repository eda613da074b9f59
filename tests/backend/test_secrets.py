"""The server's key never leaves the server: not in any answer, header, file or log line."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from backend.settings import Settings
from tests.backend.conftest import API_KEY, CHAT, MakeClient, chat_body
from tests.backend.static_tree import make_tree
from tests.support.fake_openai import FakeOpenAI, error_reply

LEAK = f"Incorrect API key provided: {API_KEY}"


def assert_no_key(response: httpx.Response) -> None:
    assert API_KEY not in response.text
    assert all(API_KEY not in value for value in response.headers.values())


@pytest.fixture
def client_with_files(make_client: MakeClient, tmp_path: Path) -> TestClient:
    return make_client(**make_tree(tmp_path))


def test_no_key_in_api_answers(client_with_files: TestClient, fake_upstream: FakeOpenAI) -> None:
    fake_upstream.script(error_reply(401, LEAK), error_reply(500, LEAK))
    requests = [
        ("GET", "/api/health", None),
        ("GET", "/api/config", None),
        ("GET", "/api/openapi.json", None),
        ("POST", CHAT, chat_body()),  # upstream 401 echoing the key
        ("POST", CHAT, chat_body(stream=True)),  # upstream 500 echoing the key
        ("POST", CHAT, chat_body()),
        ("POST", CHAT, chat_body(stream=True)),
        ("POST", CHAT, chat_body(api_key="x")),
        ("GET", "/api/nothing-here", None),
    ]
    for method, path, body in requests:
        assert_no_key(client_with_files.request(method, path, json=body))


def test_no_key_in_static_files(client_with_files: TestClient, tmp_path: Path) -> None:
    served = {"runtime": "runtime", "sdk": "js/sdk", "sandbox": "js/sandbox", "app": "web"}
    for prefix, folder in served.items():
        for path in (tmp_path / folder).rglob("*"):
            if path.is_file() and not path.name.startswith("."):
                rel = path.relative_to(tmp_path / folder).as_posix()
                assert_no_key(client_with_files.get(f"/{prefix}/{rel}"))
    assert_no_key(client_with_files.get("/"))


def test_no_key_in_settings_repr() -> None:
    settings = Settings(openai_api_key=SecretStr(API_KEY))
    assert API_KEY not in repr(settings)
    assert API_KEY not in str(settings.model_dump())


def test_no_key_or_prompt_in_logs(
    client: TestClient, fake_upstream: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    fake_upstream.script(error_reply(500, LEAK))
    prompt = "print('my secret generated code')"
    with caplog.at_level(logging.DEBUG):
        client.post(CHAT, json=chat_body(messages=[{"role": "user", "content": prompt}]))
        client.post(CHAT, json=chat_body(messages=[{"role": "user", "content": prompt}]))
    assert API_KEY not in caplog.text
    assert "my secret generated code" not in caplog.text
