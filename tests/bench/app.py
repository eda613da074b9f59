"""Web-app figures (`make bench-app`): from opening `/` to the input being usable and to the
sandbox being ready, with the browser's HTTP cache cold and warm, and the bytes each took; then
from a 10,000-point plotly result reaching the page to its chart drawn, the first chart of a page
(its library fetched and parsed) and later ones, and the bytes loaded only because a chart appeared.

Prints figures only (median, min–max of 5); nothing asserts a time.
"""

from __future__ import annotations

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


CHART_CODE = (
    "import numpy as np, plotly.express as px\n"
    "rng = np.random.default_rng(0)\n"
    "px.scatter(x=rng.normal(size=10_000), y=rng.normal(size=10_000), title='10,000 points')"
)
RUN_IN_CONSOLE = """(code) => {
  document.getElementById("console-tab").click();
  document.getElementById("code").value = code;
  document.querySelector("#console-form button[type=submit]").click();
}"""
CHART_MS = """() => {
  const [start] = performance.getEntriesByName("wasmbox:chart-requested").slice(-1);
  const [end] = performance.getEntriesByName("wasmbox:chart-rendered").slice(-1);
  return end && start && end.startTime > start.startTime ? end.startTime - start.startTime : null;
}"""


def run_when_idle(page: Page, code: str) -> None:
    """The console ignores a run while one is still finishing (the log is `aria-busy`)."""
    busy = "() => document.getElementById('transcript').getAttribute('aria-busy') === 'true'"
    while page.evaluate(busy):
        page.wait_for_timeout(100)
    page.evaluate(RUN_IN_CONSOLE, code)


def chart_run(page: Page) -> tuple[float, str]:
    """Run the 10,000-point figure in the console: (result → chart drawn ms, its caption)."""
    charts = page.locator("#transcript figure.chart")
    before = charts.count()
    run_when_idle(page, CHART_CODE)
    chart = charts.nth(before)
    chart.and_(page.locator("[data-state=rendered]")).wait_for(timeout=300_000)
    return page.evaluate(CHART_MS), chart.locator("figcaption").inner_text()


def chart_page(context: BrowserContext, url: str, charts: int) -> tuple[list[float], int, str]:
    """A new page's chart times (its first, then later ones) and the chart bytes it fetched."""
    page = context.new_page()
    fetched: list[int] = []
    page.on(
        "requestfinished",
        lambda r: fetched.append(r.sizes()["responseBodySize"]) if "/charts/" in r.url else None,
    )
    page.goto(f"{url}/?timeoutMs=300000")
    page.get_by_text("Sandbox: ready").wait_for(timeout=120_000)
    run_when_idle(page, "import numpy, plotly.express")  # imports are not the chart's
    page.locator("#transcript .result").first.wait_for(timeout=300_000)
    times, caption = [], ""
    for _ in range(charts):
        elapsed, caption = chart_run(page)
        times.append(elapsed)
    page.close()
    return times, sum(fetched), caption


def main() -> None:
    with running(test_app(Settings())) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        for label, warm in (("cold", False), ("warm", True)):
            rows = visits(browser, f"{base}/", warm)
            print(f"{label} browser cache:")
            print(f"  open → input usable:  {summary([v.input_ms for v in rows])}")
            print(f"  open → sandbox ready: {summary([v.ready_ms for v in rows])}")
            print(f"  bytes to input usable:  {megabytes(rows[-1].input_bytes)}")
            print(f"  bytes to sandbox ready: {megabytes(rows[-1].ready_bytes)}")
        # No service worker: its cache-first copy would hide the chart bytes from the page.
        context = browser.new_context(service_workers="block")
        cold, cold_bytes, caption = chart_page(context, base, RUNS)
        cached, _, _ = chart_page(context, base, 1)  # the library from the HTTP cache
        context.close()
        print(f"10,000-point plotly result → chart drawn ({caption}):")
        print(f"  first chart of a page, library fetched: {cold[0]:.0f} ms")
        print(f"  first chart of a page, library cached:  {cached[0]:.0f} ms")
        print(f"  later charts:                           {summary(cold[1:])}")
        print(f"  bytes loaded only when a chart appears: {megabytes(cold_bytes)} (encoded)")
        browser.close()


if __name__ == "__main__":
    main()
