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
from tests.support.engines import (
    ENGINE_GAPS,
    ENGINE_LACKS,
    FALLBACKS_TAKEN,
    EngineBrowser,
    launch,
    selected_engines,
)
from tests.support.engines.chromium import ChromiumBrowser
from tests.support.servers import running, test_app
from wasm_runtime.builder.manifest import MANIFEST
from wasm_runtime.paths import RUNTIME_DIR


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {**browser_type_launch_args, **launch_args()}


def server_variant(item: pytest.Item) -> str | None:
    """The server variant ("isolated" or "plain") of a test that takes one, else None."""
    params = getattr(item, "callspec", None)
    names = getattr(item, "fixturenames", ())
    if params is not None and "sdk_server" in params.params:
        return str(params.params["sdk_server"])
    return "isolated" if "isolated_server" in names else None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the engine × server variants an engine cannot run (ENGINE_GAPS), with the reason."""
    for item in items:
        params = getattr(item, "callspec", None)
        engine = params.params.get("engine") if params is not None else None
        reason = ENGINE_GAPS.get((str(engine), server_variant(item) or ""))
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"{engine} {server_variant(item)}: {reason}"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Name each feature an engine lacked where a test checked the SDK's fallback instead."""
    for engine, feature in sorted(FALLBACKS_TAKEN):
        reason = ENGINE_LACKS[engine][feature]
        terminalreporter.write_line(f"engine fallback checked, {engine} lacks {feature}: {reason}")


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
