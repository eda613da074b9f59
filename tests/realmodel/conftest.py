"""A real model for the tests: llama-cpp-python's server with SmolLM2-135M on loopback, and the app
with its backend proxy pointed at it. The model is tiny: tests assert behaviour, never answers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from backend.settings import Settings
from tests.browser.app.conftest import app_page  # noqa: F401 - the page as a user drives it
from tests.support.llama_server import llama_server
from tests.support.models import SMOLLM2
from tests.support.servers import running, test_app

LOG = Path(__file__).resolve().parents[2] / "test-results" / "llama-server.log"
# Each reply is capped (the proxy sets max_tokens) so a turn of up to eight steps stays bounded.
REPLY_TOKENS = 96


@pytest.fixture(scope="session")
def smollm2() -> Iterator[str]:
    """The base URL (…/v1) of a llama.cpp server serving SmolLM2-135M as `smollm2`."""
    LOG.parent.mkdir(parents=True, exist_ok=True)
    with llama_server(SMOLLM2, alias="smollm2", log=LOG, max_tokens=REPLY_TOKENS) as base:
        yield base


def real_settings(base: str) -> Settings:
    return Settings(
        openai_base_url=base,
        openai_api_key=SecretStr("sk-local-not-a-secret"),
        models=["smollm2"],
        max_tokens=REPLY_TOKENS,
        # Greedy decoding: the same question gets the same replies, so a test can assert a run.
        default_temperature=0.0,
        # A loaded 2-core machine can take minutes for one reply: never make a test depend on speed.
        upstream_read_timeout_s=900,
        rate_limit="10000/minute",
    )


@pytest.fixture(scope="session")
def real_proxy(smollm2: str) -> Iterator[str]:
    """The app (and its proxy) in front of the real server; no browser needed for proxy tests."""
    with running(test_app(real_settings(smollm2))) as url:
        yield url


@pytest.fixture(scope="session")
def real_app(smollm2: str, runtime_built: None) -> Iterator[str]:
    with running(test_app(real_settings(smollm2))) as url:
        yield url
