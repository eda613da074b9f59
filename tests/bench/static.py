"""Static-host figures (`make bench-static`): the exported folder under `python -m http.server`
(no COOP/COEP), the embed page's autorun cell from navigation to its first result: a cold cache, a
repeat visit, and an offline reload, with the bytes fetched from the network each time.

Targets (issue 11): cold <= 1.5 s, repeat <= 0.8 s, offline reload <= 1 s. Prints figures only.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, Request, sync_playwright

from tests.bench.stats import megabytes, summary
from tests.support.browser import launch_args
from tests.support.static_host import export_with_test_pages, http_server

RUNS = int(os.environ.get("WASMBOX_BENCH_RUNS", "3"))
FIRST_RESULT = """() => new Promise(resolve => {
    const cell = document.getElementById("answer");
    const done = () => resolve(performance.now());
    if (cell.result) done(); else cell.addEventListener("result", done, { once: true });
})"""


def first_result(page: Page, url: str | None, counted: list[int]) -> float:
    """Milliseconds from navigation start to the autorun cell's result (reload when url is None)."""
    counted.clear()
    if url is None:
        page.reload()
    else:
        page.goto(url)
    elapsed: float = page.evaluate(FIRST_RESULT)
    return elapsed


def count_network_bytes(context: BrowserContext, counted: list[int]) -> None:
    """Bytes that came from the network, not from the service worker or a cache."""

    def record(request: Request) -> None:
        response = request.response()
        if response is not None and not response.from_service_worker:
            counted.append(max(0, request.sizes()["responseBodySize"]))  # -1: unknown

    context.on("requestfinished", record)


def main() -> None:
    figures: dict[str, list[float]] = {"cold": [], "repeat": [], "offline": []}
    sizes: dict[str, list[float]] = {"cold": [], "repeat": [], "offline": []}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        site = export_with_test_pages(Path(tmp) / "site")
        browser = playwright.chromium.launch(**launch_args())
        with http_server(site) as url:
            page_url = f"{url}/examples/embed.html"
            for _ in range(RUNS):
                context = browser.new_context()
                counted: list[int] = []
                count_network_bytes(context, counted)
                page = context.new_page()
                for name, target in (("cold", page_url), ("repeat", None)):
                    figures[name].append(first_result(page, target, counted))
                    sizes[name].append(sum(counted))
                    if name == "cold":  # the service worker has precached this build
                        page.wait_for_function(
                            "navigator.serviceWorker.controller !== null", timeout=300_000
                        )
                context.set_offline(True)
                figures["offline"].append(first_result(page, None, counted))
                sizes["offline"].append(sum(counted))
                context.close()
        browser.close()
    print("first result of the embed's autorun cell, exported folder, no COOP/COEP:")
    for name in figures:
        fetched = megabytes(int(max(sizes[name])))
        print(f"  {name:8} {summary(figures[name])}   {fetched} fetched")


if __name__ == "__main__":
    main()
