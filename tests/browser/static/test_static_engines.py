"""The exported site's PyScript example and its app, on a static host, in every engine of the
matrix: driven through the engine interface (tests/support/engines), so Firefox (WebDriver BiDi)
runs them too (WebKitGTK skips them: docs/browsers.md). Chromium runs the fuller versions
(test_pyscript.py, the app tests), so it skips these."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.engines import EngineBrowser, EnginePage

pytestmark = [pytest.mark.browser, pytest.mark.timeout(900), pytest.mark.sub_path_in_chromium]

READY_TIMEOUT_MS = 600_000  # PyScript starts its own Pyodide beside the sandbox's

PYSCRIPT_STATUS = "() => document.querySelector('[role=status]')?.textContent"
RUN_UNTRUSTED = """(code) => {
  document.getElementById("untrusted").value = code;
  document.getElementById("run").click();
}"""
RESULT_HAS = """(text) => document.querySelector("[role=log][aria-label=Result]")
  ?.textContent.includes(text)"""

APP_READY = """() => [...document.querySelectorAll("*")].some(
  (e) => e.children.length === 0 && e.textContent === "Sandbox: ready")"""
RUN_IN_CONSOLE = """(code) => {
  document.getElementById("console-tab").click();
  document.getElementById("code").value = code;
  document.getElementById("console-form").requestSubmit();
}"""
STDOUT_HAS = """(text) => [...document.querySelectorAll("[aria-label=stdout]")]
  .some((e) => e.textContent.includes(text))"""


@pytest.fixture
def page(engine: EngineBrowser) -> Iterator[EnginePage]:
    if engine.name == "chromium":
        pytest.skip("Chromium: test_pyscript.py and the static-host app tests (Playwright)")
    if engine.name == "webkit":
        # One of these failed in WebKitGTK in the only run (load ~40), cause not yet looked at.
        pytest.skip("WebKitGTK: not yet passing (docs/browsers.md)")
    opened = engine.new_page()
    yield opened
    opened.close()


def test_pyscript_hands_untrusted_code_to_the_sandbox(page: EnginePage, static_site: str) -> None:
    page.goto(f"{static_site}examples/pyscript.html")
    page.wait_for_function(
        "() => document.querySelector('[role=status]')?.textContent.startsWith('PyScript ready')",
        timeout=READY_TIMEOUT_MS,
    )
    # PyScript's own interpreter shares the page...
    assert page.evaluate(PYSCRIPT_STATUS) == "PyScript ready; it can reach the page: True"
    code = "import sys\nprint('running on', sys.platform, 'in the sandbox')\n6 * 7"
    page.evaluate(RUN_UNTRUSTED, code)
    page.wait_for_function(RESULT_HAS, "outcome: ", timeout=READY_TIMEOUT_MS)
    # ...the untrusted code ran in the sandbox, which cannot.
    for text in ("outcome: OUTCOME_OK", "running on emscripten in the sandbox", "value: 42"):
        assert page.evaluate(RESULT_HAS, text), text


def test_pyscript_untrusted_code_cannot_reach_the_page(page: EnginePage, static_site: str) -> None:
    page.goto(f"{static_site}examples/pyscript.html")
    page.wait_for_function(
        "() => !document.getElementById('run').disabled", timeout=READY_TIMEOUT_MS
    )
    page.evaluate(RUN_UNTRUSTED, "import js\njs.document.title = 'owned'")
    page.wait_for_function(RESULT_HAS, "outcome: ", timeout=READY_TIMEOUT_MS)
    assert page.evaluate(RESULT_HAS, "outcome: OUTCOME_POLICY_VIOLATION")
    assert page.evaluate(RESULT_HAS, "import of 'js' is blocked")
    assert page.evaluate("() => document.title") != "owned"


def test_the_static_host_app_console_runs_code(page: EnginePage, static_site: str) -> None:
    page.goto(static_site)
    page.wait_for_function(APP_READY, timeout=READY_TIMEOUT_MS)
    page.evaluate(RUN_IN_CONSOLE, "import sys\nprint('static host', 6 * 7, sys.platform)")
    page.wait_for_function(STDOUT_HAS, "static host 42 emscripten", timeout=READY_TIMEOUT_MS)
