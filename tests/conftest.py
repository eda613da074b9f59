"""Fixtures shared by every browser test: the browser choice and the app servers.

`app_server` serves the app with cross-origin isolation (COOP/COEP), `plain_server` without it, so
tests that depend on it can run on both paths. `engine` is each browser engine WASMBOX_BROWSERS
selects (tests/support/engines): tests that take it run once per engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from backend.settings import Settings
from tests.support.browser import launch_args
from tests.support.engines import EngineBrowser, launch, selected_engines
from tests.support.engines.chromium import ChromiumBrowser
from tests.support.servers import running, test_app
from wasm_runtime.builder.manifest import MANIFEST
from wasm_runtime.paths import RUNTIME_DIR


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, **launch_args()}


@pytest.fixture(scope="session", params=selected_engines())
def engine(request: pytest.FixtureRequest) -> Iterator[EngineBrowser]:
    """A running browser of one engine; Chromium is pytest-playwright's `browser`."""
    if request.param == "chromium":
        yield ChromiumBrowser(request.getfixturevalue("browser"))
        return
    with launch(request.param) as browser:
        yield browser


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
