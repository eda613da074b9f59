"""Requests the proxy refuses, and that the upstream never sees them."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.backend.conftest import CHAT, MakeClient, chat_body
from tests.support.fake_openai import FakeOpenAI


@pytest.mark.parametrize(
    "field",
    [
        pytest.param({"api_base": "http://evil.example/v1"}, id="api_base"),
        pytest.param({"base_url": "http://evil.example/v1"}, id="base_url"),
        pytest.param({"api_key": "sk-mine"}, id="api_key"),
        pytest.param({"headers": {"Authorization": "Bearer x"}}, id="headers"),
        pytest.param({"extra_body": {"a": 1}}, id="extra_body"),
    ],
)
def test_steering_fields_are_refused(
    client: TestClient, fake_upstream: FakeOpenAI, field: dict[str, Any]
) -> None:
    response = client.post(CHAT, json=chat_body(**field))
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "extra_forbidden"
    assert fake_upstream.received == []


@pytest.mark.parametrize(
    ("content", "status", "kind"),
    [
        pytest.param(b"{not json", 422, "invalid_body", id="not-json"),
        pytest.param(b'{"model": "gpt-test"}', 422, "invalid_body", id="no-messages"),
        pytest.param(b'{"model": "gpt-test", "messages": []}', 422, "invalid_body", id="empty"),
        pytest.param(
            b'{"model": "gpt-test", "messages": [{"role": "hacker", "content": "x"}]}',
            422,
            "invalid_body",
            id="unknown-role",
        ),
        pytest.param(
            b'{"model": "gpt-test", "n": 5, "messages": [{"role": "user", "content": "x"}]}',
            422,
            "invalid_body",
            id="several-choices",
        ),
    ],
)
def test_malformed_bodies_are_refused(
    client: TestClient, content: bytes, status: int, kind: str
) -> None:
    response = client.post(CHAT, content=content, headers={"Content-Type": "application/json"})
    assert response.status_code == status
    assert response.json()["error"]["type"] == kind


def test_validation_errors_do_not_echo_the_prompt(client: TestClient) -> None:
    body = chat_body(messages=[{"role": "hacker", "content": "my secret prompt"}])
    assert "my secret prompt" not in client.post(CHAT, json=body).text


def test_model_off_the_allow_list_is_refused(client: TestClient, fake_upstream: FakeOpenAI) -> None:
    response = client.post(CHAT, json=chat_body(model="gpt-expensive"))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "model_not_allowed"
    assert "gpt-test" in error["message"]
    assert fake_upstream.received == []


def test_body_over_the_byte_cap_is_413_before_parsing(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    client = make_client(max_body_bytes=1000)
    oversized = b'{"this is": "not even valid JSON' + b" " * 2000
    response = client.post(CHAT, content=oversized, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json()["error"]["type"] == "too_large"
    assert fake_upstream.received == []


def test_chunked_body_over_the_byte_cap_is_413(make_client: MakeClient) -> None:
    client = make_client(max_body_bytes=1000)

    def chunks() -> Any:
        yield b'{"model": "gpt-test", "messages": ['
        yield b" " * 2000

    response = client.post(CHAT, content=chunks(), headers={"Content-Type": "application/json"})
    assert response.status_code == 413


def test_too_many_messages_is_413(make_client: MakeClient, fake_upstream: FakeOpenAI) -> None:
    messages = [{"role": "user", "content": "x"}] * 4
    response = make_client(max_messages=3).post(CHAT, json=chat_body(messages=messages))
    assert response.status_code == 413
    assert "messages" in response.json()["error"]["message"]
    assert fake_upstream.received == []


def test_too_many_message_characters_is_413(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    messages = [{"role": "user", "content": "x" * 600}]
    response = make_client(max_message_chars=500).post(CHAT, json=chat_body(messages=messages))
    assert response.status_code == 413
    assert "characters" in response.json()["error"]["message"]
    assert fake_upstream.received == []


@pytest.mark.parametrize(
    "content_type",
    [
        pytest.param(None, id="none"),
        pytest.param("text/plain", id="text-plain"),
        pytest.param("application/x-www-form-urlencoded", id="form"),
        pytest.param("multipart/form-data; boundary=x", id="multipart"),
    ],
)
def test_non_json_content_type_is_415(client: TestClient, content_type: str | None) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = client.post(CHAT, content=b'{"model": "gpt-test"}', headers=headers)
    assert response.status_code == 415


def test_cross_site_origin_is_403(client: TestClient, fake_upstream: FakeOpenAI) -> None:
    response = client.post(CHAT, json=chat_body(), headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers
    assert fake_upstream.received == []


def test_same_origin_request_is_allowed(client: TestClient) -> None:
    response = client.post(CHAT, json=chat_body(), headers={"Origin": "http://testserver"})
    assert response.status_code == 200


def test_configured_embed_origin_gets_cors(make_client: MakeClient) -> None:
    client = make_client(cors_origins=["https://blog.example"])
    response = client.post(CHAT, json=chat_body(), headers={"Origin": "https://blog.example"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "https://blog.example"
    assert "Origin" in response.headers["vary"]


@pytest.mark.parametrize(
    ("origin", "status"),
    [
        pytest.param("https://blog.example", 204, id="configured"),
        pytest.param("https://evil.example", 403, id="other"),
        pytest.param("null", 403, id="opaque"),
    ],
)
def test_preflight_only_for_configured_origins(
    make_client: MakeClient, origin: str, status: int
) -> None:
    client = make_client(cors_origins=["https://blog.example"])
    headers = {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
    }
    response = client.options(CHAT, headers=headers)
    assert response.status_code == status
    assert response.headers.get("access-control-allow-origin") == (
        origin if status == 204 else None
    )


def test_api_never_answers_cors_wildcard(make_client: MakeClient) -> None:
    client = make_client(cors_origins=["https://blog.example"])
    for origin in ("https://blog.example", "https://evil.example", "null"):
        for response in (
            client.get("/api/config", headers={"Origin": origin}),
            client.post(CHAT, json=chat_body(), headers={"Origin": origin}),
        ):
            assert response.headers.get("access-control-allow-origin") != "*"


@pytest.mark.parametrize(
    "credentials",
    [
        pytest.param({"headers": {"X-Wasmbox-Token": "letmein"}}, id="header"),
        pytest.param({"headers": {"Authorization": "Bearer letmein"}}, id="bearer"),
        pytest.param({"cookies": {"wasmbox_token": "letmein"}}, id="cookie"),
    ],
)
def test_access_token_is_accepted(make_client: MakeClient, credentials: dict[str, Any]) -> None:
    client = make_client(access_token="letmein")
    client.cookies.update(credentials.get("cookies", {}))
    response = client.post(CHAT, json=chat_body(), headers=credentials.get("headers"))
    assert response.status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="missing"),
        pytest.param({"X-Wasmbox-Token": "guess"}, id="wrong"),
        pytest.param({"Authorization": "Bearer letmei"}, id="prefix"),
    ],
)
def test_missing_or_wrong_token_is_401(
    make_client: MakeClient, fake_upstream: FakeOpenAI, headers: dict[str, str]
) -> None:
    response = make_client(access_token="letmein").post(CHAT, json=chat_body(), headers=headers)
    assert response.status_code == 401
    assert fake_upstream.received == []
