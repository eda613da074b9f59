"""Web-app figures (`make bench-app`): from opening `/` to the input being usable and to the
sandbox being ready, with the browser's HTTP cache cold and warm, and the bytes each took.

Prints figures only (median, min–max of 5); nothing asserts a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Browser, BrowserContext, sync_playwright

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
            (r.timing["startTime"] + r.timing["responseEnd"], r.sizes()["responseBodySize"])
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
        browser.close()


if __name__ == "__main__":
    main()
