"""The app's console in every engine WASMBOX_BROWSERS selects: code runs, its plot shows, and the
file it wrote downloads with its bytes. Driven only through the engine-agnostic page interface."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from backend.settings import Settings
from tests.support import servers
from tests.support.engines import ENGINE_GAPS, EngineBrowser
from tests.support.engines.firefox import FirefoxPage

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


PLOTLY_CODE = "import plotly.express as px\npx.scatter(x=[1, 2, 3], y=[10, 20, 30], title='Growth')"
ALTAIR_CODE = (
    "import altair as alt, pandas as pd\n"
    "alt.Chart(pd.DataFrame({'a': [1, 2, 3], 'b': [7, 8, 9]}), title='Pairs')"
    ".mark_point(size=400, filled=True).encode(x='a:Q', y='b:Q', tooltip=['a', 'b'])"
)
LATER_PLOTLY_CODE = PLOTLY_CODE.replace("20", "25").replace("Growth", "Later")
# The renderer's charts in the transcript, oldest first.
CHARTS_OF = "[...document.querySelectorAll(`#transcript figure.chart[data-renderer=${renderer}]`)]"
CHART_DRAWN = f"""([renderer, count]) => {{
  const charts = {CHARTS_OF};
  return charts.length === count && charts.at(-1).dataset.state === "rendered";
}}"""
# The last chart's frame element, scrolled into view: where its document starts in the viewport.
FRAME_ORIGIN = f"""(renderer) => {{
  const frame = {CHARTS_OF}.at(-1).querySelector("iframe");
  frame.scrollIntoView({{ block: "center" }});
  const box = frame.getBoundingClientRect();
  return [box.x + frame.clientLeft, box.y + frame.clientTop];
}}"""
# In the chart's own document (its title shown): the centre of a mark, or null in any other frame.
MARK_CENTRE = """([selector, title]) => {
  const mark = document.body.textContent.includes(title) && document.querySelector(selector);
  if (!mark) return null;
  const box = mark.getBoundingClientRect();
  return [box.x + box.width / 2, box.y + box.height / 2];
}"""
# When the last chart reached the page, in epoch ms.
CHART_REQUESTED = """() => performance.timeOrigin
  + performance.getEntriesByName("wasmbox:chart-requested").at(-1).startTime"""
TEXT_OF = "(selector) => document.querySelector(selector)?.textContent ?? ''"
# Where the chart hover test runs instead, or why it cannot (docs/browsers.md).
CHART_HOVER_ELSEWHERE = {
    "chromium": "Chromium: tests/browser/app/test_charts.py, through Playwright's frames",
    "webkit": (
        "WebKitWebDriver reports no network requests, so 'fetches nothing' cannot be checked "
        "there; the hover test runs in Chromium and Firefox"
    ),
}


def run_chart(page: FirefoxPage, code: str, renderer: str, count: int) -> None:
    """Run `code` once the console is idle; wait until the renderer's `count`th chart is drawn."""
    page.wait_for_function(
        "document.getElementById('transcript').getAttribute('aria-busy') !== 'true'"
    )
    page.evaluate(RUN_IN_CONSOLE, code)
    page.wait_for_function(CHART_DRAWN, [renderer, count], timeout=READY_TIMEOUT_MS)


def hover_in_chart(
    page: FirefoxPage, renderer: str, title: str, mark: str, label: str
) -> tuple[str, str]:
    """Move the real pointer onto `mark` in the frame of the renderer's last chart (titled
    `title`): the text of `label` it then shows, and the frame's browsing context."""
    frame_x, frame_y = page.evaluate(FRAME_ORIGIN, renderer)
    frame, centre = next(
        (f, c)
        for f in page.frames()
        if (c := page.evaluate_in(f, MARK_CENTRE, [mark, title])) is not None
    )
    assert page.evaluate_in(frame, "location.href") == "about:srcdoc"
    page.move_mouse(frame_x + centre[0], frame_y + centre[1])
    deadline = time.monotonic() + 10
    while not (text := page.evaluate_in(frame, TEXT_OF, label)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return str(text), frame


def test_charts_render_answer_a_hover_and_fetch_nothing(
    engine: EngineBrowser, engine_console_app: str
) -> None:
    """A plotly figure and an altair chart in the console: drawn in their frames, a hover shows
    a value, and nothing is fetched but the two chart libraries from the app's own origin.
    Through WebDriver BiDi: its pointer input reaches into the opaque chart frames, its scripts
    read them, and its network events see every request of the tab and its frames."""
    if not isinstance(page := engine.new_page(), FirefoxPage):
        page.close()
        pytest.skip(CHART_HOVER_ELSEWHERE.get(engine.name, "Firefox through BiDi only"))
    try:
        page.watch_requests()
        page.goto(f"{engine_console_app}/?timeoutMs=300000")  # plotly's first import, loaded
        page.wait_for_function(
            "document.getElementById('sandbox-state').textContent.includes('ready')",
            timeout=READY_TIMEOUT_MS,
        )
        start = len(page.requests())
        point = ".scatterlayer .point:nth-child(2)"
        run_chart(page, PLOTLY_CODE, "plotly", 1)
        assert "y=20" in hover_in_chart(page, "plotly", "Growth", point, ".hovertext")[0]
        run_chart(page, ALTAIR_CODE, "vega", 1)
        tooltip = hover_in_chart(page, "vega", "Pairs", "g.mark-symbol path", "#vg-tooltip-element")
        assert "7" in tooltip[0]
        # A later plotly chart: drawn in the frame started while the page was idle, moved in.
        run_chart(page, LATER_PLOTLY_CODE, "plotly", 2)
        later, frame = hover_in_chart(page, "plotly", "Later", point, ".hovertext")
        assert "y=25" in later
        assert page.evaluate_in(frame, "performance.timeOrigin") < page.evaluate(CHART_REQUESTED)

        # blob: and data: URLs stay in the browser (the sandbox frame starts its worker from one).
        sent = [(c, urlsplit(url)) for c, url in page.requests()[start:]]
        sent = [(c, url) for c, url in sent if url.scheme not in ("blob", "data")]
        own = urlsplit(engine_console_app).netloc
        assert [url.geturl() for _, url in sent if url.netloc != own] == []
        frames = set(page.frames())  # the chart frames and the sandbox's
        assert [url.geturl() for c, url in sent if c in frames] == []
        # The tab's own: the plotly wheels (its first import) and each chart library, once.
        paths = sorted(url.path for c, url in sent if c == page.context)
        libraries = [path for path in paths if not path.startswith("/runtime/")]
        assert [path.split("-")[0] for path in libraries] == ["/charts/plotly", "/charts/vega"]
    finally:
        page.close()
