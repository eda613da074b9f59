"""The web app against a scripted fake model: `agent_app` serves the real app with the backend's
proxy pointed at a FakeOpenAI on loopback; `console_app` serves it with no model configured."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Dialog, Page
from pydantic import SecretStr

from backend.settings import Settings
from tests.support.fake_openai import FakeOpenAI, Reply, stream_reply
from tests.support.network import RequestLog, watch_requests
from tests.support.servers import running, test_app

ARTIFACTS = Path(__file__).resolve().parents[3] / "test-results" / "app"
READY_TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture(scope="module")
def agent_app(fake_llm: FakeOpenAI, runtime_built: None) -> Iterator[str]:
    settings = Settings(
        openai_base_url=fake_llm.base_url,
        openai_api_key=SecretStr("sk-test-not-a-secret"),
        models=["gpt-test", "gpt-other"],
        rate_limit="10000/minute",
    )
    with running(test_app(settings)) as url:
        yield url


@pytest.fixture(scope="module")
def console_app(runtime_built: None) -> Iterator[str]:
    with running(test_app(Settings())) as url:
        yield url


WATCH_ACTIVITY_END = """() => {
  const log = document.querySelector('[role="log"]');
  window.__activityEnded = false;
  const observer = new MutationObserver((records) => {
    const wasBusy = records.some((r) => r.oldValue === "true");
    if (wasBusy && log.getAttribute("aria-busy") === "false") {
      window.__activityEnded = true;
      observer.disconnect();
    }
  });
  const watch = { attributes: true, attributeFilter: ["aria-busy"], attributeOldValue: true };
  observer.observe(log, watch);
}"""


class AppPage:
    """The page as a user drives it, plus what it must never do (dialogs, foreign requests)."""

    def __init__(self, page: Page, requests: RequestLog) -> None:
        self.page = page
        self.requests = requests
        self.dialogs: list[str] = []
        page.on("dialog", self._dialog)

    def _dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, url: str) -> AppPage:
        self.visit(url)
        self.page.get_by_text("Sandbox: ready").wait_for(timeout=READY_TIMEOUT_MS)
        return self

    def visit(self, url: str) -> AppPage:
        """Load the page without waiting for its sandbox: what a user does before it is ready."""
        self.requests.allowed_origin = url.split("/?")[0].rstrip("/")
        self.page.goto(url)
        return self

    def ask(self, text: str, timeout_ms: float = 120_000) -> None:
        """Send a message with Enter and wait until the agent has finished its turn."""
        with self.finishing(timeout_ms):
            self.page.get_by_label("Message").fill(text)
            self.page.get_by_label("Message").press("Enter")

    def run_console(self, code: str, timeout_ms: float = 120_000) -> None:
        with self.finishing(timeout_ms):
            self.page.get_by_label("Python code").fill(code)
            self.page.get_by_role("button", name="Run", exact=True).click()

    @contextmanager
    def finishing(self, timeout_ms: float) -> Iterator[None]:
        """Wait, after the block, until one more activity (a turn or a console run) has ended.

        The conversation log is `aria-busy` while an activity runs; a MutationObserver set up
        before the block sees it turn back to "false" even when the activity was quick.
        """
        self.page.evaluate(WATCH_ACTIVITY_END)
        yield
        self.page.wait_for_function("() => window.__activityEnded === true", timeout=timeout_ms)

    def transcript(self) -> dict[str, Any]:
        """The conversation as the "Transcript (JSON)" button downloads it."""
        with self.page.expect_download() as download:
            self.page.get_by_role("button", name="Transcript (JSON)").click()
        return dict(json.loads(download.value.path().read_text()))

    def screenshot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def app_page(page: Page) -> AppPage:
    return AppPage(page, watch_requests(page.context, "set by AppPage.open"))


@pytest.fixture
def model(fake_llm: FakeOpenAI) -> Iterator[ScriptedModel]:
    fake_llm.replies.clear()
    fake_llm.cors_origin = None  # a test that lets a page call the model directly sets it
    yield ScriptedModel(fake_llm)
    fake_llm.cors_origin = None


class ScriptedModel:
    def __init__(self, fake: FakeOpenAI) -> None:
        self.fake = fake
        self.start = len(fake.received)

    def script(self, *replies: Reply) -> None:
        self.fake.script(*replies)

    def requests(self) -> list[dict[str, Any]]:
        return [r.json for r in self.fake.received[self.start :] if r.path.endswith("/completions")]

    def tool_results(self) -> list[dict[str, Any]]:
        """Every run result the model was sent, parsed, in order."""
        last = self.requests()[-1]["messages"]
        return [json.loads(m["content"]) for m in last if m["role"] == "tool"]


def final(text: str) -> Reply:
    return stream_reply([text[: len(text) // 2], text[len(text) // 2 :]])
