"""Raw Pyodide beside the sandbox rows (issue 27), doing W1–W4 with the code strings the sandbox
rows run, on the build's own runtime files: npm `pyodide` in a Node worker thread
(tests/bench/raw_pyodide.mjs), and `loadPyodide` in a plain dedicated Web Worker of a plain page
served by the bench's own server, in each engine measured (tests/browser/pages/raw-pyodide.js).
Its figures are the floor of this runtime: the rows' ratios to them are what we add. Figures
only, no asserts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench.files_plots import MANY_FILES
from tests.support.engines import EngineBrowser, EnginePage
from tests.support.node_probe import node_json
from wasm_runtime.paths import RUNTIME_DIR

SCRIPT = Path(__file__).with_name("raw_pyodide.mjs")

W1 = "print(1+1)"
W2 = "1+1"
W3 = "import numpy as np; print(np.arange(1_000_000, dtype=np.int64).sum())"
W4 = (
    "import numpy as np, pandas as pd; rng = np.random.default_rng(0); "
    'df = pd.DataFrame({"customer": rng.integers(0, 50, 100_000).astype(str), '
    '"revenue": rng.random(100_000) * 1000}); '
    'print(df.groupby("customer").revenue.sum().nlargest(5))'
)
WORKLOADS = {"W1": W1, "W2": W2, "W3": W3, "W4": W4}
TIMEOUT_S = 1800
PAGE = "/test-pages/raw-pyodide.html"
PAGE_TIMEOUT_MS = 180_000
WARM_CALLS = 5


def measure(runs: int) -> dict[str, list[float]]:
    """Milliseconds per row: W1 a new worker to its first result, W2 five warm calls per worker,
    W3 and W4 a booted interpreter's first run (its packages loaded from the runtime's files)."""
    rows: dict[str, list[float]] = node_json(
        str(SCRIPT),
        f"{RUNTIME_DIR}/",
        str(runs),
        json.dumps(WORKLOADS),
        what="raw Pyodide",
        timeout=TIMEOUT_S,
    )
    return rows


def in_browser(browser: EngineBrowser, url: str, runs: int) -> dict[str, list[float]]:
    """Milliseconds per row in this engine, timed as the sandbox rows are: W1 from navigation
    start to the first result on a repeat visit (the first visit fills the HTTP cache), W2 five
    warm calls per worker, W3 and W4 a booted worker's first run; and as W4, 10,000 empty files
    (`files` the whole run, `files loop` the Python loop alone, timed inside it)."""
    rows: dict[str, list[float]] = {k: [] for k in ("W1", "W2", "W3", "W4", "files", "files loop")}
    page = browser.new_page()
    try:
        for run in range(runs + 1):
            _visit(page, url)
            at = float(page.evaluate("(code) => rawPyodide.firstResult(code)", W1))
            if run:
                rows["W1"].append(at)
        for _ in range(runs):
            rows["W2"] += page.evaluate("([c, n]) => rawPyodide.warmCalls(c, n)", [W2, WARM_CALLS])
            for key, code in (("W3", W3), ("W4", W4), ("files", MANY_FILES)):
                done = page.evaluate("(c) => rawPyodide.firstRun(c)", code)
                rows[key].append(float(done["ms"]))
            rows["files loop"].append(float(done["stdout"]) * 1000)
    finally:
        page.close()
    return rows


def open_page(browser: EngineBrowser, url: str) -> EnginePage:
    """The plain page whose workers run raw Pyodide (`warm_calls`)."""
    page = browser.new_page()
    _visit(page, url)
    return page


def warm_calls(page: EnginePage) -> list[float]:
    """W2 as `in_browser` times it: a new worker, one call, then WARM_CALLS calls timed."""
    times: list[float] = page.evaluate("([c, n]) => rawPyodide.warmCalls(c, n)", [W2, WARM_CALLS])
    return times


def open_spare_page(browser: EngineBrowser, url: str) -> EnginePage:
    """`open_page`, its first worker for `spare_calls` booting at once, as a page's spare does."""
    page = open_page(browser, url)
    page.evaluate("() => rawPyodide.prepareSpare()")
    return page


def spare_calls(page: EnginePage) -> list[float]:
    """W2 as a sandbox's is taken: one call, then WARM_CALLS timed, on a worker booted after the
    last turn and idle since (as a page's warm spare), rather than one booted just before."""
    times: list[float] = page.evaluate("([c, n]) => rawPyodide.spareCalls(c, n)", [W2, WARM_CALLS])
    return times


def keep_worker(page: EnginePage) -> int:
    """A booted raw Pyodide worker of `page` (`open_page`) kept for `run_kept` until `release`."""
    worker: int = page.evaluate("() => rawPyodide.keep()")
    return worker


def run_kept(page: EnginePage, worker: int, code: str) -> tuple[str, float]:
    """What `code` printed in kept worker `worker`, and the page's milliseconds for the run."""
    done = page.evaluate("([w, c]) => rawPyodide.runKept(w, c)", [worker, code])
    return str(done["stdout"]), float(done["ms"])


def release(page: EnginePage, worker: int) -> None:
    page.evaluate("(w) => rawPyodide.release(w)", worker)


def _visit(page: EnginePage, url: str) -> None:
    page.goto("about:blank")  # a repeat visit is a new document (Firefox aborts a same-URL one)
    page.goto(f"{url}{PAGE}")
    page.wait_for_function("window.rawReady === true", timeout=PAGE_TIMEOUT_MS)
