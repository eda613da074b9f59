"""input() in the app's console: the run's output shows a line to type in where the prompt was
printed, and the code gets what the user typed (the app is cross-origin isolated: interrupt mode,
where a run can wait for the host)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.app.conftest import AppPage

pytestmark = pytest.mark.browser


def test_input_gets_the_users_line_in_the_console(app_page: AppPage, console_app: str) -> None:
    app_page.open(console_app)
    page = app_page.page
    page.get_by_role("tab", name="Console").click()
    with app_page.finishing(120_000):
        page.get_by_label("Python code").fill(
            "name = input('Your name? ')\nprint(f'hello {name}!')"
        )
        page.get_by_role("button", name="Run", exact=True).click()
        line = page.get_by_label("input: Your name? ")
        expect(line).to_be_visible(timeout=60_000)
        line.fill("Ada")
        line.press("Enter")
    assert page.get_by_label("stdout").last.inner_text() == "Your name? Ada\nhello Ada!\n"
    assert page.get_by_label("input: Your name? ").count() == 0
