"""The app's console in every engine WASMBOX_BROWSERS selects: code runs, its plot shows, and the
file it wrote downloads with its bytes. Driven only through the engine-agnostic page interface."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from backend.settings import Settings
from tests.support import servers
from tests.support.engines import ENGINE_GAPS, EngineBrowser

pytestmark = pytest.mark.browser

READY_TIMEOUT_MS = 180_000
CODE = (
    "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n"
    "open('report.csv', 'w').write('a,b\\n1,2\\n')\nprint('saved')"
)
# Keeps what the page offers for download (name and bytes) instead of saving it to disk.
CATCH_DOWNLOADS = """() => {
  window.offered = [];
  const blobs = new Map();
  const create = URL.createObjectURL;
  URL.createObjectURL = (blob) => {
    const url = create.call(URL, blob);
    blobs.set(url, blob);
    return url;
  };
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[download]");
    if (!link) return;
    event.preventDefault();
    blobs.get(link.href).text().then((text) => offered.push({ name: link.download, text }));
  }, true);
}"""
RUN_IN_CONSOLE = """(code) => {
  document.getElementById("console-tab").click();
  document.getElementById("code").value = code;
  document.querySelector("#console-form button[type=submit]").click();
}"""
PLOT_SHOWN = """() => [...document.querySelectorAll("#transcript img.plot")]
  .some((img) => img.complete && img.naturalWidth > 0)"""
STDOUT = """() => [...document.querySelectorAll("#transcript [aria-label=stdout]")]
  .map((e) => e.textContent.trim())"""
DOWNLOAD = """(name) => [...document.querySelectorAll("#file-list button")]
  .find((b) => b.textContent.includes(name)).click()"""


@pytest.fixture
def engine_console_app(engine: EngineBrowser, runtime_built: None) -> Iterator[str]:
    """The app as served (COOP/COEP), or served plain where the engine cannot run isolated
    (ENGINE_GAPS: there the SDK refuses to start, which tests/browser/sandbox/test_modes checks)."""
    isolated = (engine.name, "isolated") not in ENGINE_GAPS
    with servers.running(servers.test_app(Settings(cross_origin_isolation=isolated))) as url:
        yield url


def test_console_runs_code_shows_the_plot_and_downloads_the_file(
    engine: EngineBrowser, engine_console_app: str
) -> None:
    console_app = engine_console_app
    page = engine.new_page()
    try:
        page.goto(f"{console_app}/?timeoutMs=120000")  # slow engines on a busy machine
        page.wait_for_function(
            "document.getElementById('sandbox-state').textContent.includes('ready')",
            timeout=READY_TIMEOUT_MS,
        )
        page.evaluate(CATCH_DOWNLOADS)
        page.evaluate(RUN_IN_CONSOLE, CODE)
        page.wait_for_function(PLOT_SHOWN, timeout=READY_TIMEOUT_MS)
        assert "saved" in page.evaluate(STDOUT)
        page.wait_for_function(
            "[...document.querySelectorAll('#file-list button')]"
            ".some((b) => b.textContent.includes('report.csv'))"
        )
        page.evaluate(DOWNLOAD, "report.csv")
        page.wait_for_function("window.offered.length > 0")
        assert page.evaluate("window.offered") == [{"name": "report.csv", "text": "a,b\n1,2\n"}]
    finally:
        page.close()


STATUS_FAILED = "document.getElementById('sandbox-state').dataset.state === 'failed'"
ALERTS = """() => [...document.querySelectorAll('#transcript [role=alert]')]
  .map((e) => e.textContent)"""


def test_an_engine_that_refuses_the_isolated_app_says_so(
    engine: EngineBrowser, runtime_built: None
) -> None:
    """WebKitGTK cannot run the sandbox under COOP/COEP: the status bar must say the sandbox failed
    to start, with the SDK's reason shown, instead of staying at "starting"."""
    if (engine.name, "isolated") not in ENGINE_GAPS:
        pytest.skip(f"{engine.name} runs the app cross-origin isolated")
    with servers.running(servers.test_app(Settings(cross_origin_isolation=True))) as url:
        page = engine.new_page()
        try:
            page.goto(url)
            page.wait_for_function(STATUS_FAILED, timeout=READY_TIMEOUT_MS)
            assert any("did not start" in alert for alert in page.evaluate(ALERTS))
        finally:
            page.close()


# A notebook as Jupyter writes it, one recorded output changed (42 was recorded as 41).
CHANGED_NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Answers\n", "Two *cells*."]},
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": ["x = 6 * 7\n", "print(x)"],
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["42\n"]}],
        },
        {
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "source": "x - 1",
            "outputs": [
                {
                    "output_type": "execute_result",
                    "execution_count": 2,
                    "metadata": {},
                    "data": {"text/plain": "40"},
                }
            ],
        },
    ],
}
DROP_FILE = """([name, text]) => {
  const data = new DataTransfer();
  data.items.add(new File([text], name));
  document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true }));
}"""
MARKS = """() => [...document.querySelectorAll("#transcript .replay-mark")]
  .map((m) => m.className.replace("replay-mark ", "") + ": " + m.textContent.trim())"""
NOTES = """() => [...document.querySelectorAll("#transcript .note, #transcript .error")]
  .map((e) => e.textContent)"""


def test_a_dropped_notebook_runs_again_and_marks_the_changed_output(
    engine: EngineBrowser, engine_console_app: str
) -> None:
    page = engine.new_page()
    try:
        page.goto(f"{engine_console_app}/?timeoutMs=120000")
        page.wait_for_function(
            "document.getElementById('sandbox-state').textContent.includes('ready')",
            timeout=READY_TIMEOUT_MS,
        )
        page.evaluate(DROP_FILE, ["answers.ipynb", json.dumps(CHANGED_NOTEBOOK)])
        page.wait_for_function(
            "document.querySelector('#transcript h1')?.textContent === 'Answers'",
            timeout=READY_TIMEOUT_MS,
        )
        page.wait_for_function(
            "document.getElementById('sandbox-state').textContent.includes('ready')",
            timeout=READY_TIMEOUT_MS,
        )
        page.evaluate("document.getElementById('run-all').click()")
        page.wait_for_function(
            "[...document.querySelectorAll('#transcript .error')]"
            ".some((e) => e.textContent.startsWith('Run all:'))",
            timeout=READY_TIMEOUT_MS,
        )
        assert page.evaluate(MARKS) == [
            "same: ✓ Same output as recorded",
            "differs: ≠ Output differs from the recorded run",
        ]
        assert any(
            "2 of 2 cells ran" in note and "1 of them differ" in note
            for note in page.evaluate(NOTES)
        )
    finally:
        page.close()
