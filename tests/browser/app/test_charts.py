"""Interactive charts in the app: plotly and altair render in their frame, answer a hover, and
fetch nothing; hostile specs (links, markup in titles, remote data, 50 MB) do nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Frame, Request

from tests.browser.app.conftest import AppPage, ScriptedModel, final
from tests.support.fake_openai import tool_call_stream_reply
from tests.support.network import watch_requests

pytestmark = pytest.mark.browser

RENDER_TIMEOUT_MS = 120_000
PLOTLY_CODE = "import plotly.express as px\npx.scatter(x=[1, 2, 3], y=[10, 20, 30], title='Growth')"
ALTAIR_CODE = (
    "import altair as alt, pandas as pd\n"
    "alt.Chart(pd.DataFrame({'a': [1, 2, 3], 'b': [7, 8, 9]}), title='Pairs')"
    ".mark_point(size=400, filled=True).encode(x='a:Q', y='b:Q', tooltip=['a', 'b'])"
)


class ChartPage(AppPage):
    """The console page, kept for the module (one sandbox boot), with every request's frame."""

    def __init__(self, app: AppPage) -> None:
        super().__init__(app.page, app.requests)
        self.from_frames: list[str] = []  # network requests of a srcdoc frame (sandbox or chart)
        self.from_page: list[str] = []  # the page's own (not its service worker's precaching)
        app.page.context.on("request", self._note_frame)

    def _note_frame(self, request: Request) -> None:
        try:
            frame_url = request.frame.url
        except Exception:  # a worker's request has no frame
            return
        self.from_page.append(request.url)
        # blob: URLs stay in the browser (the sandbox frame starts its worker from one).
        if frame_url == "about:srcdoc" and not request.url.startswith(("blob:", "data:")):
            self.from_frames.append(request.url)

    def run_chart(self, code: str) -> Frame:
        """Run `code` in the console; the frame of the chart it showed, once drawn."""
        charts = self.page.locator("#transcript figure.chart")
        before = charts.count()
        self.run_console(code)
        chart = charts.nth(before)
        chart.and_(self.page.locator("[data-state=rendered]")).wait_for(timeout=RENDER_TIMEOUT_MS)
        frame = chart.locator("iframe").element_handle().content_frame()
        assert frame is not None
        return frame

    def own_paths_since(self, start: int) -> list[str]:
        urls = [urlsplit(url) for url in self.from_page[start:]]
        return [url.path for url in urls if url.scheme in ("http", "https")]


@pytest.fixture(scope="module")
def charts_app(browser: Browser, console_app: str) -> Iterator[ChartPage]:
    context = browser.new_context()
    page = context.new_page()
    app = ChartPage(AppPage(page, watch_requests(context, "set by AppPage.open")))
    app.open(f"{console_app}/?timeoutMs=300000")  # a first import of plotly on a loaded machine
    yield app
    context.close()


def hover_shows(app: ChartPage, frame: Frame, mark: str, label: str, text: str) -> None:
    # Scrolled into the conversation's view first: a chart low in the log sits under the input.
    frame.locator(mark).first.scroll_into_view_if_needed()
    box = frame.locator(mark).first.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    app.page.mouse.move(x - 30, y - 30)
    app.page.mouse.move(x, y, steps=5)
    frame.locator(label).filter(has_text=text).first.wait_for(timeout=10_000)


def test_a_run_importing_plotly_unseen_readies_a_chart_frame_before_its_result(
    charts_app: ChartPage,
) -> None:
    # The page cannot see the import: the loader finds plotly in a branch that never runs (a
    # fullwidth first letter, which Python folds to "p"), and the import itself is a computed
    # name. The sandbox says, as the run imports it, that plotly was imported; the run then waits
    # for a line of input, so its result cannot have come when the frame starts.
    page = charts_app.page
    code = (
        "if False:\n    import \uff50lotly.express\n"
        "px = __import__('plot' + 'ly.express')\n"
        "input('imported? ')"
    )
    spare = page.locator("iframe[data-bundle=plotly][aria-hidden=true]")
    with charts_app.finishing(120_000):
        page.get_by_label("Python code").fill(code)
        page.get_by_role("button", name="Run", exact=True).click()
        line = page.get_by_label("input: imported? ")
        line.wait_for(timeout=120_000)
        spare.wait_for(state="attached", timeout=60_000)
        assert line.is_visible()  # still running: no result yet
        line.fill("yes")
        line.press("Enter")
    assert spare.count() == 1
    assert page.locator("#transcript figure.chart").count() == 0


def test_code_that_reaches_the_import_callback_can_send_nothing_else(charts_app: ChartPage) -> None:
    # Hostile code finds the JavaScript function the kernel tells imports through and calls it
    # with names off the list and with plotly (already told) over and over. The worker passes on
    # nothing: a message the host refused would have failed the run with a protocol error.
    hostile = (
        "from wasmbox_kernel.context import DISPATCHER\n"
        "hook = DISPATCHER.current().on_import\n"
        "cells = [cell.cell_contents for cell in hook.__closure__]\n"
        "tell = next(cell for cell in cells if not isinstance(cell, set))\n"
        "junk = ['numpy', 'plotly.express', '<img src=x onerror=alert(1)>', 'x' * 10**5, 7, None]\n"
        "for name in junk:\n"
        "    tell(name)\n"
        "for _ in range(1000):\n"
        "    tell('plotly')\n"
        "print('sent')"
    )
    charts_app.run_console(hostile)
    assert charts_app.page.get_by_label("stdout").last.inner_text() == "sent\n"
    assert charts_app.page.locator("iframe[data-bundle=plotly]").count() == 1
    assert charts_app.page.locator("iframe[data-bundle=vega]").count() == 0


def test_a_streaming_tool_call_naming_plotly_readies_a_chart_frame_before_it_runs(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    # The call's arguments come in two pieces 3 s apart, "plotly" split between them; the code
    # shows (and runs) only once the call is complete.
    code = "print('a plotly chart comes next')"
    model.script(tool_call_stream_reply(code, chunk_delay_s=3.0), final("Done."))
    page = app_page.open(agent_app).page
    with app_page.finishing(120_000):
        page.get_by_label("Message").fill("Chart it")
        page.get_by_label("Message").press("Enter")
        spare = page.locator("iframe[data-bundle=plotly][aria-hidden=true]")
        spare.wait_for(state="attached", timeout=30_000)
        assert page.locator("pre.code").count() == 0
    assert page.get_by_text("Done.").is_visible()


def test_a_plotly_figure_renders_answers_a_hover_and_fetches_nothing(charts_app: ChartPage) -> None:
    start = len(charts_app.from_page)
    frame = charts_app.run_chart(PLOTLY_CODE)
    hover_shows(
        charts_app, frame, ".scatterlayer .point >> nth=1", ".hoverlayer .hovertext", "y=20"
    )
    assert frame.url == "about:srcdoc"
    caption = charts_app.page.locator("#transcript figure.chart figcaption").last.inner_text()
    assert caption == "plotly figure: scatter, 1 trace(s), 3 points, title 'Growth'"
    # Same-origin loads only: the plotly wheels (first import) and the chart library, at most
    # once (a run before may have fetched it).
    paths = [p for p in charts_app.own_paths_since(start) if not p.startswith("/runtime/")]
    assert charts_app.requests.foreign() == [] and charts_app.from_frames == []
    assert len(paths) <= 1 and all(p.startswith("/charts/plotly-") for p in paths)
    charts_app.screenshot("chart-plotly")


def test_a_plotly_chart_follows_its_frames_width(charts_app: ChartPage) -> None:
    # The frame lays its chart out again itself (not plotly's `responsive` handler, which did
    # so after every resize): a narrower page gives a narrower chart.
    frame = charts_app.run_chart(PLOTLY_CODE)
    svg_width = "() => document.querySelector('.main-svg').getBoundingClientRect().width"
    before = frame.evaluate(svg_width)
    page = charts_app.page
    size = page.viewport_size
    assert size is not None
    page.set_viewport_size({"width": 480, "height": size["height"]})
    try:
        # Polled from here: the frame's policy refuses the evaluation wait_for_function needs.
        for _ in range(300):
            if frame.evaluate(svg_width) < before - 50:
                break
            page.wait_for_timeout(100)
        assert frame.evaluate(svg_width) <= 480
    finally:
        page.set_viewport_size(size)


# As a chart's figure appears, ask the SDK for its idle moment (`Sandbox.whenIdle`, which the
# SDK's background work waits for too) and note the chart's state when it comes.
WATCH_IDLE = """async () => {
  const { Sandbox } = await import("/sdk/wasmbox.js");
  const log = document.getElementById("transcript");
  const before = log.querySelectorAll("figure.chart").length;
  window.__idleAt = undefined;
  const watch = new MutationObserver(() => {
    const figure = log.querySelectorAll("figure.chart")[before];
    if (!figure) return;
    watch.disconnect();
    void Sandbox.whenIdle().then(() => (window.__idleAt = figure.dataset.state));
  });
  watch.observe(log, { childList: true, subtree: true });
}"""


def test_background_work_waits_until_a_chart_is_painted(charts_app: ChartPage) -> None:
    # The run's end would let the page's background work (runtime files kept for the next visit,
    # a spare sandbox's refill) start while the chart is drawn: it waits for the paint instead.
    # A Vega-Lite chart from code that names no chart library: its frame starts only once the
    # result comes, so the chart takes far longer than the page's next idle moment.
    page = charts_app.page
    page.evaluate(WATCH_IDLE)
    charts_app.run_chart(
        "class Chart:\n"
        "    def _repr_mimebundle_(self, include=None, exclude=None):\n"
        "        values = [{'a': i, 'b': i * i} for i in range(50)]\n"
        "        axis = lambda name: {'field': name, 'type': 'quantitative'}\n"
        "        spec = {'data': {'values': values}, 'mark': 'point',\n"
        "                'encoding': {'x': axis('a'), 'y': axis('b')}}\n"
        "        return {'application/vnd.vegalite.v5+json': spec, 'text/plain': 'squares'}\n"
        "Chart()"
    )
    page.wait_for_function("() => window.__idleAt !== undefined", timeout=30_000)
    assert page.evaluate("window.__idleAt") == "rendered"


def test_an_altair_chart_renders_answers_a_hover_and_fetches_nothing(charts_app: ChartPage) -> None:
    start = len(charts_app.from_page)
    frame = charts_app.run_chart(ALTAIR_CODE)
    hover_shows(charts_app, frame, "g.mark-symbol path", "#vg-tooltip-element", "7")
    assert charts_app.requests.foreign() == [] and charts_app.from_frames == []
    # The vega library at most once (a chart before may have fetched it).
    paths = [p for p in charts_app.own_paths_since(start) if not p.startswith("/runtime/")]
    assert len(paths) <= 1 and all(p.startswith("/charts/vega-") for p in paths)
    charts_app.screenshot("chart-altair")


def _pwned(frame: Frame) -> Any:
    return frame.evaluate("() => [document.title, window.__pwned ?? null, location.href]")


def test_links_and_markup_in_a_plotly_figure_do_nothing(charts_app: ChartPage) -> None:
    origin = charts_app.requests.allowed_origin
    code = (
        "import plotly.graph_objects as go\n"
        "fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], mode='markers+text',\n"
        "    text=[\"<a href='javascript:window.__pwned=1'>point link</a>\"] * 2))\n"
        "fig.update_layout(title=\"<a href='javascript:window.__pwned=2'>Click me</a>"
        "<script>window.__pwned=3</script><img src=x onerror='window.__pwned=4'>\",\n"
        f"    annotations=[dict(x=1.5, y=3.5, text=\"<a href='{origin}/leak'>leak link</a>\")],\n"
        f"    images=[dict(source='{origin}/leak.png', x=0, y=1)])\n"
        "fig"
    )
    start = len(charts_app.from_page)
    frame = charts_app.run_chart(code)
    assert frame.locator("a[href], a[*|href]").count() == 0
    assert frame.locator("script").count() == 1  # the chart library's own
    assert frame.locator("img").count() == 0
    for text in ("Click me", "leak link", "point link"):  # a click where the link was
        frame.get_by_text(text).first.click(force=True)
    charts_app.page.wait_for_timeout(500)
    assert _pwned(frame) == ["", None, "about:srcdoc"]
    assert not any("leak" in path for path in charts_app.own_paths_since(start))
    assert charts_app.requests.foreign() == [] and charts_app.from_frames == []
    assert charts_app.dialogs == []


def test_a_vega_spec_with_remote_data_and_links_fetches_and_runs_nothing(
    charts_app: ChartPage,
) -> None:
    origin = charts_app.requests.allowed_origin
    code = (
        "import altair as alt, pandas as pd\n"
        f"remote = alt.Chart(alt.UrlData('{origin}/leak.json')).mark_point().encode(x='a:Q')\n"
        "links = alt.Chart(pd.DataFrame({'a': [1, 2], 'u': ['javascript:window.__pwned=1', "
        f"'{origin}/leak-href']}}), title='<b onmouseover=\"window.__pwned=2\">t</b>')"
        ".mark_point(size=900, filled=True).encode(x='a:Q', href='u:N')\n"
        "alt.hconcat(remote, links)"
    )
    start = len(charts_app.from_page)
    frame = charts_app.run_chart(code)
    for mark in frame.locator("g.mark-symbol path").all():
        mark.click(force=True)
    charts_app.page.wait_for_timeout(500)
    assert _pwned(frame) == ["", None, "about:srcdoc"]
    assert not any("leak" in path for path in charts_app.own_paths_since(start))
    assert charts_app.requests.foreign() == [] and charts_app.from_frames == []


def test_a_50_mb_spec_is_refused_with_a_note_and_the_page_stays_responsive(
    charts_app: ChartPage,
) -> None:
    # Published past the kernel's own cap, as code that owns the sandbox could: the host refuses.
    code = (
        "from wasmbox_kernel.context import DISPATCHER\n"
        "spec = '{\"data\": [{\"y\": [' + '1,' * 25_000_000 + '1]}]}'\n"
        "DISPATCHER.current().displays.append("
        "{'mime': 'application/vnd.plotly.v1+json', 'data': spec})\n"
        "len(spec)"
    )
    page = charts_app.page
    charts = page.locator("#transcript figure.chart").count()
    charts_app.run_console(code)
    assert page.locator("#transcript figure.chart").count() == charts
    note = page.locator("#transcript .result").last.inner_text()
    assert "chart not shown: its application/vnd.plotly.v1+json spec is 50.0 MB" in note
    assert json.loads(page.evaluate("() => JSON.stringify([1 + 1])")) == [2]
    charts_app.run_console("print('still here')")
    assert page.get_by_label("stdout").last.inner_text().strip() == "still here"


def test_a_figure_the_smaller_plotly_library_lacks_is_drawn_with_the_full_one(
    charts_app: ChartPage,
) -> None:
    code = (
        "import plotly.graph_objects as go\n"
        "go.Figure(go.Scatterpolar(r=[1, 2, 3], theta=[0, 90, 180], mode='markers'))"
    )
    start = len(charts_app.from_page)
    frame = charts_app.run_chart(code)
    assert frame.locator(".polarlayer .scatterlayer .point").count() == 3  # polar, not a scatter
    paths = [p for p in charts_app.own_paths_since(start) if not p.startswith("/runtime/")]
    assert len(paths) == 1 and paths[0].startswith("/charts/plotly-full-")
    assert charts_app.requests.foreign() == [] and charts_app.from_frames == []
