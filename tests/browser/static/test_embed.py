"""<wasmbox-cell> on the export's example page (examples/embed.html), served with no headers:
an autorun cell, a plot, an error, two sessions, the keyboard, and the page's CSS kept out; and
input(), which gets the user's line where the page is cross-origin isolated (the app's server
sends the example page with COOP/COEP) and raises EOFError saying why where it is not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.sandbox.conftest import isolated_server  # noqa: F401 (a fixture)
from tests.support.engines import ENGINE_GAPS, EngineBrowser, EnginePage, selected_engines
from tests.support.engines.chromium import ChromiumBrowser

pytestmark = [pytest.mark.browser, pytest.mark.sub_path_in_chromium]

RUN_TIMEOUT_MS = 180_000
# A cell's last result, as JSON-friendly fields, once it has one.
RESULT = """id => {
    const r = document.getElementById(id).result;
    return r ? { outcome: r.outcome, stdout: r.stdout, error: r.error,
                 mimes: r.displays.map(d => d.mime) } : null;
}"""
SHADOW_TEXT = "id => document.getElementById(id).shadowRoot.querySelector('.output').textContent"


@pytest.fixture(scope="module")
def embed_page(engine: EngineBrowser, static_site: str) -> Iterator[EnginePage]:
    page = engine.new_page()
    page.goto(f"{static_site}examples/embed.html")
    yield page
    page.close()


def run_cell(page: EnginePage, cell: str) -> dict[str, Any]:
    """Run a cell as its Run button does, with a deadline no busy machine reaches."""
    result: dict[str, Any] = page.evaluate(
        """async id => {
            const cell = document.getElementById(id);
            cell.setAttribute("timeout", "600");
            await cell.run();
            return null;
        }""",
        cell,
    )
    assert result is None
    return last_result(page, cell)


def last_result(page: EnginePage, cell: str) -> dict[str, Any]:
    page.wait_for_function(f"({RESULT})({cell!r}) !== null", timeout=RUN_TIMEOUT_MS)
    found: dict[str, Any] = page.evaluate(RESULT, cell)
    return found


def test_the_autorun_cell_shows_42(embed_page: EnginePage) -> None:
    assert last_result(embed_page, "answer")["stdout"] == "42\n"
    assert "42" in embed_page.evaluate(SHADOW_TEXT, "answer")


def test_a_plot_cell_shows_an_image(embed_page: EnginePage) -> None:
    result = run_cell(embed_page, "plot")
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["mimes"] == ["image/png"]
    src = embed_page.evaluate(
        "document.getElementById('plot').shadowRoot.querySelector('img.plot').src"
    )
    assert src.startswith("data:image/png;base64,")


def test_a_chart_cell_draws_an_interactive_chart(embed_page: EnginePage) -> None:
    result = run_cell(embed_page, "chart")
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    value = "Object.keys(document.getElementById('chart').result.value)"
    assert embed_page.evaluate(value) == ["application/vnd.vegalite.v5+json", "text/plain"]
    figure = "document.getElementById('chart').shadowRoot.querySelector('figure.chart')"
    embed_page.wait_for_function(f"{figure}?.dataset.state === 'rendered'", timeout=RUN_TIMEOUT_MS)


def test_an_error_cell_shows_its_traceback(embed_page: EnginePage) -> None:
    result = run_cell(embed_page, "error")
    assert result["outcome"] == "OUTCOME_FAILED"
    assert result["error"]["name"] == "ZeroDivisionError"
    text = embed_page.evaluate(SHADOW_TEXT, "error")
    assert "ZeroDivisionError" in text and "ratio(1, 0)" in text


def test_cells_share_a_sandbox_only_within_a_session(embed_page: EnginePage) -> None:
    run_cell(embed_page, "first-a")
    assert run_cell(embed_page, "second-a")["stdout"] == "session a\n"
    assert run_cell(embed_page, "in-b")["stdout"] == "False\n"


def test_printed_html_is_text_not_markup(embed_page: EnginePage) -> None:
    embed_page.evaluate(
        """() => {
            const cell = document.getElementById('in-b');
            cell.shadowRoot.querySelector('textarea').value =
                "class Page:\\n"
                + "    def _repr_html_(self):\\n"
                + "        return ('<b>bold</b><img src=x onerror=alert(1)>'\\n"
                + "                '<script>alert(1)</script>')\\n"
                + "print('<img src=x onerror=alert(1)>')\\n"
                + "Page()";
        }"""
    )
    run_cell(embed_page, "in-b")
    html = embed_page.evaluate(
        "document.getElementById('in-b').shadowRoot.querySelector('.output').innerHTML"
    )
    assert "<b>bold</b>" in html
    assert "onerror" not in html.replace("&lt;img src=x onerror=alert(1)&gt;", "")
    assert "<script" not in html


@pytest.mark.skipif(
    "chromium" not in selected_engines(),
    reason="Chromium's keyboard through Playwright; other engines run the cells through the page",
)
def test_ctrl_enter_runs_the_edited_code(engine: EngineBrowser, static_site: str) -> None:
    """Keyboard only: Tab reaches the code, Ctrl+Enter runs what was typed (Chromium's keyboard).
    Through the `engine` fixture's own Chromium (tests/conftest.py), as the other tests here."""
    if not isinstance(engine, ChromiumBrowser):
        pytest.skip("Chromium's keyboard through Playwright")
    page = engine.browser.new_page()
    try:
        page.goto(f"{static_site}examples/embed.html")
        code = page.get_by_role("textbox", name="Python code").last
        code.focus()
        code.fill("print('typed', 3 * 3)")
        code.press("Control+Enter")
        output = page.locator("#in-b").get_by_label("Output")
        expect(output).to_contain_text("typed 9", timeout=RUN_TIMEOUT_MS)
        page.keyboard.press("Shift+Tab")
        assert page.evaluate("document.activeElement.id") == "second-a"
    finally:
        page.close()


def test_the_host_page_css_does_not_reach_in(embed_page: EnginePage) -> None:
    color = embed_page.evaluate(
        "getComputedStyle(document.getElementById('answer').shadowRoot"
        ".querySelector('textarea')).color"
    )
    assert color != "rgb(102, 51, 153)"  # the page's `textarea { color: rebeccapurple }`


def test_input_where_the_page_is_not_isolated_says_why(embed_page: EnginePage) -> None:
    result = run_cell(embed_page, "ask")
    assert result["outcome"] == "OUTCOME_FAILED"
    assert result["error"]["name"] == "EOFError"
    assert "terminate-only" in result["error"]["message"]


# The cell's input line, in its shadow root, once input() asks (null before).
INPUT_LINE = """id => {
    const field = document.getElementById(id).shadowRoot.querySelector('.live form input');
    return field ? field.getAttribute('aria-label') : null;
}"""
# Type a line and press Enter, as the keyboard would (every engine: through the page).
ANSWER = """([id, line]) => {
    const field = document.getElementById(id).shadowRoot.querySelector('.live form input');
    field.value = line;
    field.form.requestSubmit();
}"""


def test_input_gets_the_users_line_where_the_page_is_isolated(
    engine: EngineBrowser,
    isolated_server: str,  # noqa: F811
) -> None:
    if (engine.name, "isolated") in ENGINE_GAPS:
        pytest.skip(ENGINE_GAPS[(engine.name, "isolated")])
    page = engine.new_page()
    try:
        page.goto(f"{isolated_server}/examples/embed.html")
        page.evaluate("() => void document.getElementById('ask').run()")
        page.wait_for_function(f"({INPUT_LINE})('ask') !== null", timeout=RUN_TIMEOUT_MS)
        assert page.evaluate(INPUT_LINE, "ask") == "input: Your name? "
        page.evaluate(ANSWER, ["ask", "Ada"])
        result = last_result(page, "ask")
        assert result["outcome"] == "OUTCOME_OK", result["error"]
        assert result["stdout"] == "Your name? Ada\nHello, Ada!\n"
        assert page.evaluate(INPUT_LINE, "ask") is None
    finally:
        page.close()
