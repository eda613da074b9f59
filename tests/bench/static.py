"""Static-host figures (`make bench-static`): the exported folder under `python -m http.server`
(no COOP/COEP), the embed page's autorun cell from navigation to its first result: a cold cache, a
repeat visit, and an offline reload, with the bytes fetched from the network each time.

Targets (issue 11): cold <= 1.5 s, repeat <= 0.8 s, offline reload <= 1 s. Prints figures only,
with the median time of each `wasmbox:` performance mark (where the time to the result goes).

`WASMBOX_BENCH_BASELINE=DIR` (another build's `wasmbox export`) alternates runs between DIR and
this build in one process, and prints each figure's ratio: on a shared machine only a comparison
made in the same minutes means anything.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
from collections import defaultdict
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, Request, sync_playwright

from tests.bench.stats import megabytes, summary
from tests.support.browser import launch_args
from tests.support.static_host import export_with_test_pages, http_server

RUNS = int(os.environ.get("WASMBOX_BENCH_RUNS", "3"))
VISITS = ("cold", "repeat", "offline")
FIRST_RESULT = """() => new Promise(resolve => {
    const cell = document.getElementById("answer");
    const done = () => resolve(performance.now());
    if (cell.result) done(); else cell.addEventListener("result", done, { once: true });
})"""
MARKS = """() => performance.getEntriesByType("mark")
    .filter(m => m.name.startsWith("wasmbox:"))
    .map(m => [m.name.slice("wasmbox:".length), m.startTime])"""


class Figures:
    """One build's samples: time to the first result, bytes, and marks, per visit."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.bytes_before: dict[str, list[float]] = defaultdict(list)
        self.bytes_visit: dict[str, list[float]] = defaultdict(list)
        self.marks: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))


def first_result(page: Page, url: str | None) -> float:
    """Milliseconds from navigation start to the autorun cell's result (reload when url is None)."""
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


def one_run(browser: Browser, page_url: str, figures: Figures) -> None:
    """A cold visit, a repeat visit and an offline reload in a new profile."""
    context = browser.new_context()
    counted: list[int] = []
    count_network_bytes(context, counted)
    page = context.new_page()
    for name in VISITS:
        counted.clear()
        if name == "offline":
            context.set_offline(True)
        figures.times[name].append(first_result(page, page_url if name == "cold" else None))
        figures.bytes_before[name].append(sum(counted))
        for mark, at in page.evaluate(MARKS):
            figures.marks[name][mark].append(at)
        if name == "cold":  # the service worker has precached this build: the visit is over
            page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=300_000)
        figures.bytes_visit[name].append(sum(counted))
    context.close()


def report(label: str, figures: Figures) -> None:
    print(f"{label}: first result of the embed's autorun cell, exported folder, no COOP/COEP:")
    for name in VISITS:
        before = megabytes(int(max(figures.bytes_before[name])))
        visit = megabytes(int(max(figures.bytes_visit[name])))
        print(
            f"  {name:8} {summary(figures.times[name])}   {before} before it, {visit} in the visit"
        )
    for name in VISITS:
        steps = sorted((statistics.median(at), mark) for mark, at in figures.marks[name].items())
        print(f"  {name} marks (median ms): " + ", ".join(f"{mark} {at:.0f}" for at, mark in steps))


def load_average() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    print(load_average())
    with (
        tempfile.TemporaryDirectory() as tmp,
        sync_playwright() as playwright,
        ExitStack() as stack,
    ):
        sites = {"this build": export_with_test_pages(Path(tmp) / "site")}
        if baseline:
            sites = {"baseline": Path(baseline), **sites}
        figures = {label: Figures() for label in sites}
        urls = {label: stack.enter_context(http_server(site)) for label, site in sites.items()}
        browser = playwright.chromium.launch(**launch_args())
        stack.callback(browser.close)
        for _ in range(RUNS):  # alternating builds, so both see the same load
            for label, url in urls.items():
                one_run(browser, f"{url}/examples/embed.html", figures[label])
    for label in sites:
        report(label, figures[label])
    if baseline:
        print("this build / baseline (median):")
        for name in VISITS:
            ratio = statistics.median(figures["this build"].times[name]) / statistics.median(
                figures["baseline"].times[name]
            )
            print(f"  {name:8} {ratio:.3f}")
    print(load_average())


if __name__ == "__main__":
    main()
