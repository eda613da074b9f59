"""Web-app figures (`make bench-app`): from opening `/` to the input being usable and to the
sandbox being ready, with the browser's HTTP cache cold and warm, and the bytes each took; then
from a 10,000-point plotly result reaching the page to its chart painted: a page's first chart
after a run that imported plotly, one whose own run imports and names plotly (its frame starts
with the run), one whose run imports it unnamed (its frame starts as the sandbox says it
imported plotly), and later ones; the same from the run's submission, and
the bytes loaded only for charts; and a page's first chart of a trace type the smaller plotly
library lacks (drawn with the full one).
`--only pages` or `--only charts` prints one half.

Prints figures only (median, min–max of 5); nothing asserts a time.
"""

from __future__ import annotations

import argparse
import math
import statistics
from dataclasses import dataclass

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from backend.settings import Settings
from tests.bench.stats import megabytes, summary
from tests.support.browser import launch_args
from tests.support.servers import running, test_app

RUNS = 5


@dataclass
class Visit:
    input_ms: float
    ready_ms: float
    input_bytes: int
    ready_bytes: int


def visit(context: BrowserContext, url: str) -> Visit:
    page = context.new_page()
    finished: list[tuple[float, int]] = []  # (epoch ms when done, encoded body bytes)
    page.on(
        "requestfinished",
        lambda r: finished.append(
            (
                r.timing["startTime"] + r.timing["responseEnd"],
                max(r.sizes()["responseBodySize"], 0),  # -1: from the cache
            )
        ),
    )
    page.goto(url)
    page.get_by_text("Sandbox: ready").wait_for(timeout=120_000)
    marks = page.evaluate(
        "Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"
    )
    origin = page.evaluate("performance.timeOrigin")
    input_at = origin + marks["wasmbox:input-ready"]
    page.close()
    return Visit(
        input_ms=marks["wasmbox:input-ready"],
        ready_ms=marks["wasmbox:sandbox-ready"],
        input_bytes=sum(size for end, size in finished if 0 <= end <= input_at),
        ready_bytes=sum(size for _, size in finished),
    )


def visits(browser: Browser, url: str, warm: bool) -> list[Visit]:
    results = []
    context = browser.new_context()
    if warm:
        visit(context, url)  # fills the HTTP cache
    for _ in range(RUNS):
        if not warm:
            context.close()
            context = browser.new_context()
        results.append(visit(context, url))
    context.close()
    return results


# The chart's own code. web/src/ui/chart-view.ts starts the chart library as soon as a run that
# names plotly begins, as the sandbox says a run imported plotly, or once a run that imported it
# returns; a run whose import is spelled with a fullwidth first letter (which Python folds to
# "p", so the import is the real one) does not name it: its frame starts at the import.
CHART = (
    "rng = np.random.default_rng(0)\n"
    "px.scatter(x=rng.normal(size=10_000), y=rng.normal(size=10_000), title='10,000 points')"
)
NAMED = "import plotly.express as px\n"
UNNAMED = "import \uff50lotly.express as px\n"
# 10,000 points in polar axes (scatterpolargl), a trace type only the full plotly library has.
POLAR = (
    "rng = np.random.default_rng(0)\n"
    "px.scatter_polar(r=rng.random(10_000), theta=rng.random(10_000) * 360, title='polar')"
)
# A page's first run: with plotly, or numpy only (the chart's run then imports plotly itself).
IMPORTS = "import numpy as np, \uff50lotly.express as px"
NUMPY = "import numpy as np"
RUN_IN_CONSOLE = """(code) => {
  document.getElementById("console-tab").click();
  document.getElementById("code").value = code;
  performance.mark("bench:run-submitted");
  document.querySelector("#console-form button[type=submit]").click();
}"""
# (result → chart painted, run submitted → chart painted) of the last chart, in ms, and when
# its result reached the page (epoch ms).
CHART_MS = """() => {
  const last = (name) => performance.getEntriesByName(name).at(-1)?.startTime ?? NaN;
  const end = last("wasmbox:chart-rendered");
  const start = last("wasmbox:chart-requested");
  return [end - start, end - last("bench:run-submitted"), performance.timeOrigin + start];
}"""
# The chart frame's own marks (web/src/charts/frame-side.ts), in epoch ms.
FRAME_MARKS = """() => Object.fromEntries(performance.getEntriesByType("mark").map((m) =>
  [m.name.replace("wasmbox:chart-frame-", ""), performance.timeOrigin + m.startTime]))"""
# The window `resize`s the chart's frame got, and the times it laid the chart out again for one,
# from its spec on: read a moment after "rendered", so the ones its height may cause are counted.
FRAME_RESIZES = """() => {
  const spec = performance.getEntriesByName("wasmbox:chart-frame-spec").at(-1)?.startTime ?? 0;
  const since = (name) =>
    performance.getEntriesByName(name).filter((m) => m.startTime >= spec).length;
  return [since("wasmbox:chart-frame-resize"), since("wasmbox:chart-frame-relayout")];
}"""


def run_when_idle(page: Page, code: str) -> None:
    """The console ignores a run while one is still finishing (the log is `aria-busy`)."""
    busy = "() => document.getElementById('transcript').getAttribute('aria-busy') === 'true'"
    while page.evaluate(busy):
        page.wait_for_timeout(100)
    page.evaluate(RUN_IN_CONSOLE, code)


@dataclass
class ChartRun:
    result_ms: float  # the result reaching the page → its chart painted
    run_ms: float  # the run submitted → its chart painted (the Python run included)
    to_frame_ms: float  # the result reaching the page → its spec reaching the chart's frame
    draw_ms: float  # the spec in the frame → plotly's drawing done
    paint_ms: float  # drawing done → painted and reported to the page
    caption: str
    resizes: tuple[int, int]  # window resizes the frame got after its spec, and relayouts for them


def chart_run(page: Page, code: str) -> ChartRun:
    """Run `code` (the 10,000-point figure) in the console and wait for its chart to be drawn."""
    charts = page.locator("#transcript figure.chart")
    before = charts.count()
    run_when_idle(page, code)
    chart = charts.nth(before)
    chart.and_(page.locator("[data-state=rendered]")).wait_for(timeout=300_000)
    result_ms, run_ms, requested = page.evaluate(CHART_MS)
    frame = chart.locator("iframe").element_handle().content_frame()
    marks = frame.evaluate(FRAME_MARKS) if frame else {}
    page.wait_for_timeout(500)
    resizes = tuple(frame.evaluate(FRAME_RESIZES)) if frame else (-1, -1)
    spec, drawn = marks.get("spec", math.nan), marks.get("drawn", math.nan)
    return ChartRun(
        result_ms,
        run_ms,
        to_frame_ms=spec - requested,
        draw_ms=drawn - spec,
        paint_ms=requested + result_ms - drawn,
        caption=chart.locator("figcaption").inner_text(),
        resizes=resizes,
    )


def parts(runs: list[ChartRun]) -> str:
    """Where the time went, medians: result → spec in its frame, drawing, painting."""
    median = lambda values: statistics.median(values)  # noqa: E731
    return (
        f"into the frame {median([r.to_frame_ms for r in runs]):.0f} ms, "
        f"plotly drawing {median([r.draw_ms for r in runs]):.0f} ms, "
        f"to the paint {median([r.paint_ms for r in runs]):.0f} ms, "
        f"resizes/relayouts {' '.join(f'{r.resizes[0]}/{r.resizes[1]}' for r in runs)}"
    )


def chart_page(
    context: BrowserContext, url: str, imports: str, codes: list[str]
) -> tuple[list[ChartRun], int]:
    """A new page's chart runs, one per code, after `imports`; the chart bytes it fetched."""
    page = context.new_page()
    fetched: list[int] = []
    page.on(
        "requestfinished",
        lambda r: (
            fetched.append(max(r.sizes()["responseBodySize"], 0)) if "/charts/" in r.url else None
        ),
    )
    page.goto(f"{url}/?timeoutMs=300000")
    page.get_by_text("Sandbox: ready").wait_for(timeout=120_000)
    run_when_idle(page, imports)
    page.locator("#transcript .result").first.wait_for(timeout=300_000)
    if fetched and "lotly" not in imports:
        raise RuntimeError("a chart library was fetched before any run named or imported it")
    runs = [chart_run(page, code) for code in codes]
    page.close()
    return runs, sum(fetched)


def chart_figures(browser: Browser, base: str, runs: int = RUNS) -> None:
    """The chart rows: a page whose first run imported plotly, one whose chart's run imports and
    names it, one whose chart's run imports it unnamed, and a figure only the full library draws."""
    # No service worker: its cache-first copy would hide the chart bytes from the page.
    context = browser.new_context(service_workers="block")
    imported, chart_bytes = chart_page(context, base, IMPORTS, [NAMED + CHART] * runs)
    # The library from the HTTP cache from here on.
    named, _ = chart_page(context, base, NUMPY, [NAMED + CHART])
    unnamed, _ = chart_page(context, base, NUMPY, [UNNAMED + CHART])
    polar, full_bytes = chart_page(context, base, IMPORTS, [NAMED + POLAR])  # the full one fetched
    context.close()
    first, later, own, bare = imported[0], imported[1:], named[0], unnamed[0]
    print(f"10,000-point plotly result → chart painted ({first.caption}):")
    print("  first chart of a page whose previous run imported plotly (library fetched then;")
    print(f"    its run names plotly too): {first.result_ms:8.0f} ms  ({parts([first])})")
    print("  first chart of a page, its own run imports and names plotly, so its frame starts")
    print(f"    as the run begins: {own.result_ms:8.0f} ms  ({parts([own])})")
    print("  first chart of a page, its run imports plotly unnamed: the frame starts as the")
    print(f"    sandbox says so (library cached): {bare.result_ms:8.0f} ms  ({parts([bare])})")
    print(f"  later charts, a warm frame waiting: {summary([r.result_ms for r in later])}")
    print(f"    ({parts(later)})")
    print("  first chart of a page, a trace type only the full library has (its run names")
    print(
        f"    plotly; the smaller library refuses it): {polar[0].result_ms:8.0f} ms  "
        f"({polar[0].caption}; {parts(polar)})"
    )
    print("  run submitted → chart painted (the Python run included):")
    print(f"    first chart, plotly imported by a previous run: {first.run_ms:8.0f} ms")
    print(f"    first chart, its run imports and names plotly:  {own.run_ms:8.0f} ms")
    print(f"    first chart, its run imports plotly unnamed:    {bare.run_ms:8.0f} ms")
    print(f"    later charts: {summary([r.run_ms for r in later])}")
    print(
        "  bytes loaded only once a run names or imports plotly or a chart appears: "
        f"{megabytes(chart_bytes)} (encoded)"
    )
    print(
        "  and the full library, only for a figure the smaller one cannot draw: "
        f"{megabytes(full_bytes)} (encoded)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="web-app figures: pages, then charts")
    parser.add_argument("--only", choices=("pages", "charts"), help="print one half of the rows")
    only = parser.parse_args().only
    with running(test_app(Settings())) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        for label, warm in (("cold", False), ("warm", True)) if only != "charts" else ():
            rows = visits(browser, f"{base}/", warm)
            print(f"{label} browser cache:")
            print(f"  open → input usable:  {summary([v.input_ms for v in rows])}")
            print(f"  open → sandbox ready: {summary([v.ready_ms for v in rows])}")
            print(f"  bytes to input usable:  {megabytes(rows[-1].input_bytes)}")
            print(f"  bytes to sandbox ready: {megabytes(rows[-1].ready_bytes)}")
        if only != "pages":
            chart_figures(browser, base)
        browser.close()


if __name__ == "__main__":
    main()
