"""Fixtures for the sandbox SDK tests: the app served with or without cross-origin isolation
(test pages included, with the app's own page headers), a page per engine and server, and
sandboxes. Tests drive pages only through `SdkPage` and `EnginePage` (goto, evaluate,
wait_for_function, close), so each runs in every engine WASMBOX_BROWSERS selects."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request, Response
from playwright.sync_api import Browser

from backend.settings import Settings
from backend.static import app_page_headers
from tests.support.engines import EngineBrowser, EnginePage, lacks
from tests.support.engines.chromium import ChromiumBrowser
from tests.support.runtime_store import STORE_KEYS
from tests.support.servers import running, test_app

pytestmark = pytest.mark.browser

SDK_PAGE = "/test-pages/sdk-sandbox.html"
BOOT_TIMEOUT_MS = 120_000
TRUSTED_TYPES_ONLY = "require-trusted-types-for 'script'; trusted-types 'none'"


def app_with_page_headers(isolated: bool, settings: Settings | None = None) -> FastAPI:
    """The test app, whose /test-pages/ get the headers real app pages get (COOP/COEP, CSP)."""
    app = test_app(settings or Settings(cross_origin_isolation=isolated))

    @app.middleware("http")
    async def page_headers(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        if request.url.path.startswith("/test-pages/"):
            response.headers.update(app_page_headers(isolated))
            # A page that enforces Trusted Types, as a host app may (test_refusal.py).
            if "trusted-types" in request.query_params:
                policy = response.headers["content-security-policy"]
                response.headers["content-security-policy"] = f"{policy}; {TRUSTED_TYPES_ONLY}"
        return response

    return app


@pytest.fixture(scope="session", params=["isolated", "plain"])
def sdk_server(request: pytest.FixtureRequest, runtime_built: None) -> Iterator[str]:
    with running(app_with_page_headers(request.param == "isolated")) as url:
        yield url


@pytest.fixture(scope="session")
def isolated_server(runtime_built: None) -> Iterator[str]:
    with running(app_with_page_headers(True)) as url:
        yield url


class SdkPage:
    """A page with the SDK loaded; `create` and `run` go through `window.wasmbox`."""

    def __init__(self, page: EnginePage, engine: str) -> None:
        self.page = page
        self.engine = engine

    def create(self, **options: Any) -> str:
        sandbox_id: str = self.page.evaluate(
            "async o => (await wasmbox.Sandbox.create(o)).id", options
        )
        return sandbox_id

    def run(self, sandbox_id: str, code: str, **options: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(
            "([id, code, o]) => wasmbox.run(id, code, o)", [sandbox_id, code, options]
        )
        return result

    def call(self, sandbox_id: str, method: str, *args: Any) -> Any:
        return self.page.evaluate(
            "([id, m, args]) => wasmbox.Sandbox.get(id)[m](...args)",
            [sandbox_id, method, list(args)],
        )


def open_sdk_page(engine: EngineBrowser | Browser, server: str) -> tuple[EnginePage, SdkPage]:
    """A new page (its own storage) with the SDK loaded; close the first item when done."""
    if isinstance(engine, Browser):  # a Playwright Chromium, as older tests pass
        engine = ChromiumBrowser(engine)
    page = engine.new_page()
    page.goto(f"{server}{SDK_PAGE}")
    page.wait_for_function("window.sdkReady === true", timeout=BOOT_TIMEOUT_MS)
    return page, SdkPage(page, engine.name)


@pytest.fixture(scope="module")
def sdk(engine: EngineBrowser, sdk_server: str) -> Iterator[SdkPage]:
    """One page per engine, server and test module; sandboxes share its warm spare."""
    page, sdk_page = open_sdk_page(engine, sdk_server)
    yield sdk_page
    page.close()


@pytest.fixture(scope="module")
def sandbox(sdk: SdkPage) -> str:
    """A sandbox shared by the tests of a module that do not disturb each other."""
    return sdk.create()


@pytest.fixture
def c_loop_sdk(engine: EngineBrowser, sdk: SdkPage, sdk_server: str) -> Iterator[SdkPage]:
    """The page for a test that leaves a loop inside C to the watchdog. Where the engine cannot
    stop a worker inside WebAssembly (ENGINE_LACKS), the killed loop keeps a core busy until its
    page closes, so the test gets a page of its own and the module's later tests keep the CPU."""
    if not lacks(engine.name, "terminate-stops-c-loops"):
        yield sdk
        return
    page, own = open_sdk_page(engine, sdk_server)
    try:
        yield own
    finally:
        page.close()


# The page's decoded runtime files, written once the page is idle (tests/support/runtime_store.py).
LARGE_FILES = ("snapshot.bin", "pyodide.asm.wasm", "python_stdlib.zip")
HAS_STORED = f"""async (names) => {{
  const stored = (await ({STORE_KEYS})()).map((key) => key.split("?")[0]);
  return names.every((name) => stored.includes(name));
}}"""
