"""The local model (SmolLM2-135M, sha256-pinned in tests/support/models.py) in a page served with
the app's page headers, its GGUF at /test-models/. One page loads the model once for the module:
loading it is the slow part, and what each test checks does not depend on a fresh engine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.staticfiles import StaticFiles
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.sandbox.conftest import app_with_page_headers
from tests.support.models import SMOLLM2, ModelError, ensure
from tests.support.network import RequestLog, watch_requests
from tests.support.servers import running

pytestmark = pytest.mark.browser

PAGE = "/test-pages/local-model.html"
MODEL_URL = f"/test-models/{SMOLLM2.filename}"
# SmolLM2 in WebAssembly on a shared 2-core machine: seconds per step, minutes when it is loaded.
TURN_TIMEOUT_MS = 900_000
# SmolLM2-135M rarely decides to call a tool by itself: the message spells the call out, so a call
# is likely; the assertions hold whether or not it makes one.
SCRIPTED = (
    "Reply with exactly this line and nothing else: "
    '<tool_call>{"name": "run_python", "arguments": {"code": "print(6 * 7)"}}</tool_call>'
)
# Short replies and a small context: the tests check behaviour, not the model's prose.
MODEL_OPTIONS = {"url": MODEL_URL, "threads": 1, "contextSize": 1024, "maxTokens": 32, "gpu": False}


@pytest.fixture(scope="session")
def smollm2_path() -> Any:
    try:
        return ensure(SMOLLM2)
    except ModelError as error:
        pytest.fail(f"SmolLM2 could not be fetched: {error}")


@pytest.fixture(scope="module")
def model_server(runtime_built: None, smollm2_path: Any) -> Iterator[str]:
    app = app_with_page_headers(True)
    app.mount("/test-models", StaticFiles(directory=smollm2_path.parent), name="test-models")
    with running(app) as url:
        yield url


class LocalPage:
    """The test page in one browser context, with every request it makes recorded."""

    def __init__(self, context: BrowserContext, base_url: str) -> None:
        self.context = context
        self.requests: RequestLog = watch_requests(context, base_url)
        self.page: Page = context.new_page()
        self.page.set_default_timeout(TURN_TIMEOUT_MS)
        self.page.goto(base_url + PAGE)
        self.page.wait_for_function("() => window.localReady === true")

    def load(self, **options: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(
            "o => localTest.load(o)", {**MODEL_OPTIONS, **options}
        )
        return result

    def ask(self, text: str, **options: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(
            "([t, o]) => localTest.ask(t, o)", [text, options]
        )
        return result

    def chat(self, messages: list[dict[str, str]], **options: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.page.evaluate(
            "([m, o]) => localTest.chat(m, o)", [messages, options]
        )
        return result

    def stored_urls(self) -> list[str]:
        """The keys of the page's model store."""
        urls: list[str] = self.page.evaluate(
            "async () => (await (await caches.open('wasmbox-models-v1')).keys()).map((r) => r.url)"
        )
        return urls

    def progress(self) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self.page.evaluate("() => localTest.state.progress")
        return events


@pytest.fixture(scope="module")
def local_page(browser: Browser, model_server: str) -> Iterator[LocalPage]:
    context = browser.new_context()
    try:
        yield LocalPage(context, model_server)
    finally:
        context.close()
