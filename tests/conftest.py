"""Fixtures shared by every browser test: the browser choice and the app servers.

`app_server` serves the app with cross-origin isolation (COOP/COEP), `plain_server` without it, so
tests that depend on it can run on both paths. `engine` is each browser engine WASMBOX_BROWSERS
selects (tests/support/engines): tests that take it run once per engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from playwright.sync_api import Playwright

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
from tests.support.parallel import ModuleScheduling
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
    """Skip the engine × server variants an engine cannot run (ENGINE_GAPS), with the reason; the
    sub-path variant outside Chromium where a module says its URLs are all that changes; and
    tests marked `chromium_only` (engine-independent) outside Chromium."""
    for item in items:
        params = getattr(item, "callspec", None)
        engine = params.params.get("engine") if params is not None else None
        reason = ENGINE_GAPS.get((str(engine), server_variant(item) or ""))
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"{engine} {server_variant(item)}: {reason}"))
        elif engine not in (None, "chromium") and (once := chromium_runs_it(item)):
            item.add_marker(pytest.mark.skip(reason=f"Chromium runs it: {once}"))


def chromium_runs_it(item: pytest.Item) -> str | None:
    """Why only Chromium runs `item`, if it is engine-independent: marked `chromium_only`, or the
    export's sub-path variant in a module marked `sub_path_in_chromium`."""
    if once := item.get_closest_marker("chromium_only"):
        return str(once.args[0])
    params = getattr(item, "callspec", None)
    on_sub_path = params is not None and params.params.get("static_site") == "sub-path"
    if on_sub_path and item.get_closest_marker("sub_path_in_chromium") is not None:
        return "the sub-path variant changes only the export's URLs"
    return None


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own sends the worker's output
def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker, hand the fallbacks its tests took to the main process."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["engine_fallbacks"] = sorted(FALLBACKS_TAKEN)


def pytest_testnodedown(node: Any, error: object) -> None:
    """An xdist worker ended: its fallbacks join the run's summary."""
    taken = getattr(node, "workeroutput", {}).get("engine_fallbacks", [])
    FALLBACKS_TAKEN.update((engine, feature) for engine, feature in taken)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> ModuleScheduling | None:
    """`--dist loadscope` by module, tests/realmodel as one unit (tests/support/parallel.py)."""
    return ModuleScheduling(config, log) if config.getvalue("dist") == "loadscope" else None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Name each feature an engine lacked where a test checked the SDK's fallback instead."""
    for engine, feature in sorted(FALLBACKS_TAKEN):
        reason = ENGINE_LACKS[engine][feature]
        terminalreporter.write_line(f"engine fallback checked, {engine} lacks {feature}: {reason}")


class LaunchedEngines:
    """Firefox and WebKit, each launched when first asked for and closed with the session. Two
    pytest workers each switch engines once per module (tests/support/parallel.py): a switch
    back finds its browser running."""

    def __init__(self, stack: ExitStack) -> None:
        self.stack = stack
        self.browsers: dict[str, EngineBrowser] = {}

    def get(self, name: str) -> EngineBrowser:
        if name not in self.browsers:
            self.browsers[name] = self.stack.enter_context(launch(name))
        return self.browsers[name]


@pytest.fixture(scope="session")
def launched_engines() -> Iterator[LaunchedEngines]:
    with ExitStack() as stack:
        yield LaunchedEngines(stack)


@pytest.fixture(scope="session")
def engine_chromium(
    playwright: Playwright, browser_type_launch_args: dict[str, Any]
) -> Iterator[ChromiumBrowser]:
    """Chromium for the `engine` tests, apart from pytest-playwright's `browser`: pytest launches
    that one again, closing the old, whenever a test's `browser_name` parameter differs from the
    last one's, and the `engine` tests have none."""
    browser = playwright.chromium.launch(**browser_type_launch_args)
    yield ChromiumBrowser(browser)
    browser.close()


@pytest.fixture(scope="session", params=selected_engines())
def engine(request: pytest.FixtureRequest) -> EngineBrowser:
    """A running browser of one engine."""
    if request.param == "chromium":
        chromium: ChromiumBrowser = request.getfixturevalue("engine_chromium")
        return chromium
    launched: LaunchedEngines = request.getfixturevalue("launched_engines")
    return launched.get(request.param)


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
