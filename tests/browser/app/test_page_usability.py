"""The page as a person uses it: keyboard, phone width, dark mode, visible sandbox state."""

from __future__ import annotations

from typing import Literal

import pytest

from tests.browser.app.conftest import AppPage, ScriptedModel, final
from tests.support.fake_openai import FakeOpenAI

pytestmark = pytest.mark.browser


def test_shift_enter_adds_a_line_and_enter_sends(
    app_page: AppPage, agent_app: str, fake_llm: FakeOpenAI
) -> None:
    fake_llm.replies.clear()
    model = ScriptedModel(fake_llm)
    model.script(final("Got both lines."))
    app_page.open(agent_app)
    box = app_page.page.get_by_label("Message")
    box.fill("first line")
    box.press("Shift+Enter")
    box.type("second line")
    assert box.input_value() == "first line\nsecond line"
    assert model.requests() == []
    with app_page.finishing(60_000):
        box.press("Enter")
    assert model.requests()[0]["messages"][-1]["content"] == "first line\nsecond line"
    assert box.input_value() == ""


def test_sandbox_state_is_announced(app_page: AppPage, console_app: str) -> None:
    app_page.open(console_app)
    state = app_page.page.get_by_role("status").filter(has_text="Sandbox:")
    assert state.inner_text() == "Sandbox: ready"


def test_sandbox_state_follows_a_run(app_page: AppPage, console_app: str) -> None:
    app_page.open(console_app)
    page = app_page.page
    state = page.get_by_role("status").filter(has_text="Sandbox:")
    with app_page.finishing(60_000):
        page.get_by_label("Python code").fill("import time\ntime.sleep(1.5)")
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_text("Sandbox: busy").wait_for(timeout=30_000)
    page.get_by_text("Sandbox: ready").wait_for(timeout=30_000)
    assert state.inner_text() == "Sandbox: ready"


def test_a_sandbox_that_cannot_start_is_shown_as_failed(
    app_page: AppPage, console_app: str
) -> None:
    """Not left at "starting" forever: the status and an alert give the reason."""
    page = app_page.page
    page.route("**/runtime/**", lambda route: route.abort())
    page.goto(console_app)
    page.get_by_text("Sandbox: failed to start").wait_for(timeout=120_000)
    assert "did not start" in (page.get_by_role("status").first.get_attribute("title") or "")
    assert "could not start" in page.get_by_role("alert").first.inner_text()


def test_start_up_progress_counted_the_runtime_download(
    app_page: AppPage, console_app: str
) -> None:
    app_page.open(console_app)  # a fresh browser context: the runtime was downloaded
    bar = app_page.page.get_by_role(
        "progressbar", name="Starting the Python sandbox", include_hidden=True
    )
    assert float(bar.get_attribute("max") or 0) > 20_000_000
    assert bar.is_hidden()  # gone once the sandbox is ready


@pytest.mark.parametrize(
    "scheme", [pytest.param("light", id="light"), pytest.param("dark", id="dark")]
)
def test_phone_width_has_no_sideways_scroll(
    app_page: AppPage, console_app: str, scheme: Literal["light", "dark"]
) -> None:
    page = app_page.page
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme=scheme)
    app_page.open(console_app)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # The scheme is applied: the page's own colours (web/styles.css), not the browser's default.
    colours = page.evaluate(
        "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
    )
    expected = {"light": ["rgb(251, 251, 250)", "rgb(29, 31, 33)"]}
    expected["dark"] = ["rgb(22, 24, 27)", "rgb(230, 231, 233)"]
    assert colours == expected[scheme]
    assert page.get_by_label("Python code").is_visible()
    assert page.get_by_role("button", name="Run", exact=True).is_visible()
    app_page.screenshot(f"phone-{scheme}")
