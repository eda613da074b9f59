"""The file and plot rows `make bench-reliability` and `make bench-sandbox` both print (issue 27):
10,000 empty files created in one run, a session's first and second plot, and a 10x10 seaborn
pairplot next to native CPython's. Each row goes to `row(label, text)`. Figures only, no asserts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol

from tests.bench.stats import summary
from tests.support.engines import EnginePage


class Row(Protocol):
    """Prints a row; `samples` (milliseconds), where given, are for a table's ratios."""

    def __call__(self, label: str, text: str, samples: list[float] | None = None) -> None: ...


KERNEL_ROOT = Path(__file__).resolve().parents[2] / "wasm_runtime" / "kernel"
# The page times the call itself, so driver round trips (slow in WebDriver engines) are not counted.
RUN = """async ([id, code, o]) => {
  const t = performance.now();
  const result = await wasmbox.run(id, code, o);
  return { result, ms: performance.now() - t };
}"""
CREATE = "async o => (await wasmbox.Sandbox.create(o)).id"
MANY_FILES = (
    "import os, time\nos.makedirs('many', exist_ok=True)\nt = time.perf_counter()\n"
    "for i in range(10_000):\n    open(f'many/{i}', 'w').close()\n"
    "print(time.perf_counter() - t)"
)
FIRST_PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()"
# A 10x10 seaborn pairplot (about 100 panels), shown as a cell's figures are: the kernel captures
# it at the end of the run. Natively, the same kernel runs it in this Python (seaborn is a dev
# dependency), so the ratio is the sandbox's alone.
PAIRPLOT = (
    "import numpy as np, pandas as pd, seaborn as sns\n"
    "rng = np.random.default_rng(0)\n"
    "df = pd.DataFrame(rng.normal(size=(500, 10)), columns=[f'c{i}' for i in range(10)])\n"
    "sns.pairplot(df)"
)
PAIRPLOT_IMPORTS = "import numpy, pandas, seaborn, matplotlib.pyplot"
NATIVE_PAIRPLOT = """
import asyncio, sys, tempfile, time
sys.path.insert(0, sys.argv[1])
from wasmbox_kernel import Kernel, KernelOptions
kernel = Kernel(KernelOptions(cwd=tempfile.mkdtemp()))
asyncio.run(kernel.run(sys.argv[2], run_id="imports"))
started = time.perf_counter()
result = asyncio.run(kernel.run(sys.argv[3], run_id="pairplot"))
print(time.perf_counter() - started, result["outcome"], len(result["displays"]))
"""
LOOP_ROW = "10,000 empty files: Python loop"
WHOLE_ROW = "10,000 empty files: whole run"
# A loaded machine may take many times the usual: the rows wait rather than fail.
FILES_TIMEOUT_MS = 300_000
PLOT_TIMEOUT_MS = 300_000
PAIRPLOT_TIMEOUT_MS = 600_000


def run(
    page: EnginePage, sandbox: str, code: str, **options: object
) -> tuple[dict[str, Any], float]:
    """The result of `code` in `sandbox` (an id) and the page's milliseconds for it."""
    timed = page.evaluate(RUN, [sandbox, code, options])
    return timed["result"], float(timed["ms"])


def create(page: EnginePage, **options: object) -> str:
    sandbox: str = page.evaluate(CREATE, options)
    return sandbox


def close(page: EnginePage, sandbox: str) -> None:
    page.evaluate(f"wasmbox.Sandbox.get('{sandbox}').close()")


def many_files(page: EnginePage, sandbox: str, runs: int, row: Row) -> None:
    """10,000 empty files in one run (the same names again each run): the Python loop's rate,
    timed inside the run, and the whole run as the page waits for it."""
    loop, whole = [], []
    for _ in range(runs):
        result, ms = run(page, sandbox, MANY_FILES, timeoutMs=FILES_TIMEOUT_MS)
        if result["outcome"] != "OUTCOME_OK":
            raise RuntimeError(f"the files run failed: {result['outcome']}")
        loop.append(float(result["stdout"]) * 1000)
        whole.append(ms)
    row(LOOP_ROW, summary(files_per_second(loop), "files/s"), loop)
    row(WHOLE_ROW, summary(whole), whole)


def files_per_second(loop_ms: list[float]) -> list[float]:
    return [10_000_000 / ms for ms in loop_ms]


def first_plot(page: EnginePage, runs: int, row: Row) -> None:
    """A new session's first plot (created from the page's spare), then its second."""
    first, second = [], []
    for _ in range(runs):
        fresh = create(page)
        first.append(run(page, fresh, FIRST_PLOT, timeoutMs=PLOT_TIMEOUT_MS)[1])
        second.append(run(page, fresh, FIRST_PLOT, timeoutMs=PLOT_TIMEOUT_MS)[1])
        close(page, fresh)
    row("first plot of a session", summary(first))
    row("second plot of a session", summary(second))


def pairplot(page: EnginePage, runs: int, row: Row) -> None:
    """The sandbox's time next to native CPython's, the same kernel, one after the other."""
    sandboxed, native = [], []
    for _ in range(runs):
        fresh = create(page)
        run(page, fresh, PAIRPLOT_IMPORTS, timeoutMs=PAIRPLOT_TIMEOUT_MS)
        result, ms = run(page, fresh, PAIRPLOT, timeoutMs=PAIRPLOT_TIMEOUT_MS)
        if result["outcome"] != "OUTCOME_OK" or not result["displays"]:
            raise RuntimeError(f"the pairplot did not draw: {result['outcome']}")
        sandboxed.append(ms)
        close(page, fresh)
        done = subprocess.run(
            [sys.executable, "-c", NATIVE_PAIRPLOT, str(KERNEL_ROOT), PAIRPLOT_IMPORTS, PAIRPLOT],
            capture_output=True,
            text=True,
            check=True,
        )
        seconds, outcome, _ = done.stdout.split()
        if outcome != "OUTCOME_OK":
            raise RuntimeError(f"the native pairplot did not draw: {outcome}")
        native.append(float(seconds) * 1000)
    row("10x10 seaborn pairplot, sandbox", summary(sandboxed))
    row("10x10 seaborn pairplot, native CPython", summary(native))
    ratios = sorted(s / n for s, n in zip(sandboxed, native, strict=True))
    row("  ratio sandbox / native (run by run)", f"{ratios[len(ratios) // 2]:.1f}x median")
