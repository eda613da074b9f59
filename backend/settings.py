"""All configuration, read once from the environment (prefix `WASMBOX_`)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from wasm_runtime.paths import JS_DIR, REPO_ROOT, RUNTIME_DIR


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


@lru_cache
def get_settings() -> Settings:
    return Settings()
