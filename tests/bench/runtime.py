"""Runtime figures (`make bench-runtime`): build time cold and warm, bytes on disk and on the wire,
and time from worker start to Pyodide ready in headless Chromium, browser cache cold and warm.

Prints figures only; the machine is shared and noisy, so nothing here asserts a time.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright
from rich.console import Console

from backend.settings import Settings
from tests.bench.stats import megabytes, summary
from tests.support.browser import launch_args
from tests.support.servers import running, test_app
from wasm_runtime.builder import BuildOptions, build_runtime
from wasm_runtime.paths import RUNTIME_DIR

RUNS = 5
BOOT_PAGE = "/test-pages/runtime-boot.html"
SNAPSHOT_QUERY = "?snapshot=snapshot.bin"
QUIET = Console(quiet=True)


def build_times() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache, out = Path(tmp) / "cache", Path(tmp) / "out"
        cold = build_runtime(BuildOptions(out_dir=out, cache_dir=cache, use_cdn=False), QUIET)
        fresh_out = build_runtime(BuildOptions(out_dir=Path(tmp) / "out2", cache_dir=cache), QUIET)
        rebuild = build_runtime(BuildOptions(out_dir=out, cache_dir=cache), QUIET)
    print(f"build, cold cache (downloads {len(cold.downloaded)} files): {cold.seconds:8.1f} s")
    print(f"build, warm cache, empty output folder:        {fresh_out.seconds:8.1f} s")
    print(f"build, warm cache, output already built:       {rebuild.seconds:8.1f} s")


def disk_bytes() -> None:
    manifest = json.loads((RUNTIME_DIR / "manifest.json").read_text())
    files = manifest["files"].values()
    raw = sum(entry["size"] for entry in files)
    served = sum(entry.get("encodings", {}).get("br", entry["size"]) for entry in files)
    print(
        f"runtime on disk: {megabytes(raw)} ({len(manifest['files'])} files); as served (br): "
        f"{megabytes(served)}"
    )


def wire_bytes(page: Page, base: str) -> tuple[int, int]:
    """Encoded response bytes the page fetched to boot, then to import numpy and pandas."""
    responses: list[tuple[str, int]] = []
    page.on("requestfinished", lambda r: responses.append((r.url, r.sizes()["responseBodySize"])))
    page.goto(base + BOOT_PAGE)
    page.evaluate("window.ready")
    boot = sum(size for _, size in responses)
    page.evaluate("window.runPython('import numpy, pandas')")
    return boot, sum(size for _, size in responses) - boot


def boot_ms(browser: Browser, base: str, warm: bool, query: str = "") -> list[float]:
    samples = []
    context = browser.new_context()
    if warm:  # fill the HTTP cache once, then measure reloads
        page = context.new_page()
        page.goto(base + BOOT_PAGE + query)
        page.evaluate("window.ready")
        page.close()
    for _ in range(RUNS):
        if not warm:
            context.close()
            context = browser.new_context()
        page = context.new_page()
        page.goto(base + BOOT_PAGE + query)
        page.evaluate("window.ready")
        samples.append(float(page.evaluate("window.bootMs")))
        page.close()
    context.close()
    return samples


def main() -> None:
    started = time.perf_counter()
    build_times()
    disk_bytes()
    with running(test_app(Settings(cross_origin_isolation=True))) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        context = browser.new_context()
        boot, numpy_pandas = wire_bytes(context.new_page(), base)
        context.close()
        print(f"bytes fetched to boot Pyodide (core only):     {megabytes(boot)}")
        print(f"bytes fetched to import numpy + pandas:        {megabytes(numpy_pandas)}")
        rows = {}
        for label, query in (("", ""), (" (snapshot)", SNAPSHOT_QUERY)):
            for cache, warm in (("cold", False), ("warm", True)):
                rows[cache + label] = boot_ms(browser, base, warm, query)
                print(
                    f"worker start → ready, {cache} HTTP cache{label}: ".ljust(48)
                    + summary(rows[cache + label])
                )
        plain = statistics.median(rows["cold"])
        for name, samples in rows.items():
            print(f"  {name:<16} {statistics.median(samples) / plain:.2f}× of plain cold boot")
        browser.close()
    print(f"(benchmark took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
