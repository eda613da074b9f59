"""All configuration, read once from the environment.

`OPENAI_API_KEY` and `OPENAI_BASE_URL` keep the names every OpenAI-compatible tool uses; everything
else has the `WASMBOX_` prefix. Lists are comma-separated (`WASMBOX_MODELS=gpt-4o-mini,gpt-4o`).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from wasm_runtime.paths import JS_DIR, REPO_ROOT, RUNTIME_DIR

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
CommaList = Annotated[list[str], NoDecode]
StreamingMode = Literal["auto", "always", "never"]
# What the page and the proxy say when no LLM is configured.
HOW_TO_CONFIGURE = (
    "No LLM is configured on this server. Set OPENAI_API_KEY for OpenAI, or OPENAI_BASE_URL for "
    "any OpenAI-compatible server (Ollama: http://localhost:11434/v1, vLLM, llama.cpp), plus "
    "WASMBOX_MODELS=model1,model2 for the models to offer; then restart wasmbox."
)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WASMBOX_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    runtime_dir: Path = RUNTIME_DIR
    js_dir: Path = JS_DIR
    web_dir: Path = REPO_ROOT / "web"
    cross_origin_isolation: bool = Field(
        default=True,
        description="Send COOP/COEP on app pages; off exercises the non-isolated (hard-kill) path.",
    )

    # The upstream LLM. A base URL alone is enough for keyless local servers (Ollama, llama.cpp).
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "openai_api_key")
    )
    openai_base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_BASE_URL", "openai_base_url")
    )
    models: CommaList = Field(default=["gpt-4o-mini"], description="model allow-list")
    streaming: dict[str, StreamingMode] = Field(
        default={},
        description=(
            "per model, whether the web agent streams: JSON such as "
            '{"qwen2.5-coder": "never"}; unlisted models are "auto" (stream, and fall back '
            "to one JSON answer when the server cannot stream tool calls)"
        ),
    )
    upstream_connect_timeout_s: float = 10.0
    upstream_read_timeout_s: float = 120.0
    upstream_connect_retries: int = 2

    # Caps on what one request may ask for.
    max_body_bytes: int = 2_000_000
    max_messages: int = 200
    max_message_chars: int = 1_000_000
    max_tokens: int = 4096
    # Sent when a request sets none (servers' own defaults differ: llama.cpp's is 0.8).
    default_temperature: float | None = Field(default=None, ge=0, le=2)

    # Abuse controls. `rate_limit` uses the `limits` syntax: "30/minute;500/day".
    rate_limit: str = "30/minute;500/day"
    rate_limit_storage: str = Field(default="memory://", description="memory:// or redis://…")
    max_streams_per_client: int = 4
    max_streams_total: int = 1000

    # Access control for public deployments and the origins allowed to embed the API.
    access_token: SecretStr | None = None
    cors_origins: CommaList = Field(default=[], description="embed origins allowed by CORS")
    allow_public: bool = False

    @field_validator("models", "cors_origins", mode="before")
    @classmethod
    def split_commas(cls, value: object) -> object:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("cors_origins")
    @classmethod
    def no_wildcard_origin(cls, origins: list[str]) -> list[str]:
        # A wildcard would let any site spend the server's key.
        if "*" in origins or "null" in origins:
            raise ValueError("CORS origins must be listed one by one ('*' and 'null' are refused)")
        return [origin.rstrip("/") for origin in origins]

    @field_validator("rate_limit_storage")
    @classmethod
    def known_storage(cls, uri: str) -> str:
        if not uri.startswith(("memory://", "redis://", "rediss://")):
            raise ValueError("rate_limit_storage must be memory:// or redis://host:port")
        return uri

    @property
    def llm_configured(self) -> bool:
        return self.openai_api_key is not None or self.openai_base_url is not None

    @property
    def upstream_base_url(self) -> str:
        return (self.openai_base_url or OPENAI_DEFAULT_BASE_URL).rstrip("/")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def unsafe_exposure(settings: Settings, host: str) -> str | None:
    """Why binding `host` with these settings is unsafe, or None when it is fine."""
    if is_loopback(host) or settings.access_token is not None or settings.allow_public:
        return None
    return (
        f"refusing to bind {host}: anyone who can reach it could spend the LLM key. "
        "Set WASMBOX_ACCESS_TOKEN, or pass --allow-public (WASMBOX_ALLOW_PUBLIC=true) "
        "if that is intended."
    )


@lru_cache
def get_settings() -> Settings:
    return Settings()
