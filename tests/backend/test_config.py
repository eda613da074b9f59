"""`GET /api/config` and `/api/health`, and the 503 when no LLM is configured."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from backend.settings import Settings
from tests.backend.conftest import CHAT, MakeClient, chat_body


def test_health(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"status": "ok"}


def test_config_reports_models_and_limits(make_client: MakeClient) -> None:
    client = make_client(max_tokens=512, max_messages=7)
    config = client.get("/api/config").json()
    assert config["models"] == ["gpt-test", "gpt-other"]
    assert config["llmConfigured"] is True
    assert config["howToConfigure"] is None
    assert config["limits"]["maxTokens"] == 512
    assert config["limits"]["maxMessages"] == 7


def test_config_reports_the_streaming_mode_per_model(make_client: MakeClient) -> None:
    assert make_client().get("/api/config").json()["streaming"] == {}
    client = make_client(streaming={"gpt-test": "never"})
    assert client.get("/api/config").json()["streaming"] == {"gpt-test": "never"}


def test_streaming_setting_is_read_from_json_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WASMBOX_STREAMING", '{"qwen": "never", "gpt-4o": "always"}')
    assert Settings().streaming == {"qwen": "never", "gpt-4o": "always"}
    monkeypatch.setenv("WASMBOX_STREAMING", '{"qwen": "sometimes"}')
    with pytest.raises(ValidationError):
        Settings()


def test_config_without_llm_says_how_to_configure(make_client: MakeClient) -> None:
    config = make_client(openai_api_key=None, openai_base_url=None).get("/api/config").json()
    assert config["llmConfigured"] is False
    assert "OPENAI_BASE_URL" in config["howToConfigure"]


def test_config_says_when_a_token_is_required(make_client: MakeClient) -> None:
    config = make_client(access_token="letmein").get("/api/config").json()
    assert config["accessTokenRequired"] is True


def test_chat_without_llm_is_503_with_instructions(make_client: MakeClient) -> None:
    response = make_client(openai_api_key=None, openai_base_url=None).post(CHAT, json=chat_body())
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["type"] == "llm_not_configured"
    assert "OPENAI_API_KEY" in error["message"]
    assert "Ollama" in error["message"]


def test_base_url_alone_configures_a_keyless_server(make_client: MakeClient) -> None:
    client = make_client(openai_api_key=None)
    assert client.get("/api/config").json()["llmConfigured"] is True
    assert client.post(CHAT, json=chat_body()).status_code == 200
