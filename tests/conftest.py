"""Fixtures shared by every browser test: the browser choice and the app servers.

`app_server` serves the app with cross-origin isolation (COOP/COEP), `plain_server` without it, so
tests that depend on it can run on both paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from backend.settings import Settings
from tests.support.browser import launch_args
from tests.support.servers import running, test_app
from wasm_runtime.builder.manifest import MANIFEST
from wasm_runtime.paths import RUNTIME_DIR


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, **launch_args()}


@pytest.fixture(scope="session")
def runtime_built() -> None:
    if not (RUNTIME_DIR / MANIFEST).is_file():
        pytest.fail("The runtime is not built: run `make test` (or `.venv/bin/wasmbox build`).")


@pytest.fixture(scope="session")
def app_server(runtime_built: None) -> Iterator[str]:
    with running(test_app(Settings(cross_origin_isolation=True))) as url:
        yield url


@pytest.fixture(scope="session")
def plain_server(runtime_built: None) -> Iterator[str]:
    with running(test_app(Settings(cross_origin_isolation=False))) as url:
        yield url
