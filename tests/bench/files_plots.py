"""The file and plot rows `make bench-reliability` and `make bench-sandbox` both print (issue 27):
10,000 empty files created in one run, a session's first and second plot, and a 10x10 seaborn
pairplot next to native CPython's. Each row goes to `row(label, text)`. Figures only, no asserts."""

from __future__ import annotations

import statistics
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
    row("first plot of a session, created at once (no idle time)", summary(first))
    row("second plot of a session", summary(second))


# The first plot of a session created at once, a step per run: where its time goes. The first
# step's import is never run: the run loads the packages its imports name (the wheels installed,
# their side modules linked) and nothing more. The kernel captures the figure at the run's end.
FIRST_PLOT_STEPS = (
    ("packages loaded, nothing imported", "if False:\n    import matplotlib.pyplot"),
    ("import numpy", "import numpy"),
    ("import matplotlib", "import matplotlib"),
    ("import matplotlib.pyplot", "import matplotlib.pyplot as plt"),
    ("first figure, drawn and captured", "plt.plot([1, 2, 3])\nplt.show()"),
    ("second figure", "plt.plot([1, 2, 3])\nplt.show()"),
)


def first_plot_steps(page: EnginePage, runs: int, row: Row) -> None:
    """A session created at once takes the first plot's steps one run at a time."""
    samples: dict[str, list[float]] = {name: [] for name, _ in FIRST_PLOT_STEPS}
    for _ in range(runs):
        for name, ms in first_plot_step_sample(page).items():
            samples[name].append(ms)
    for name, _ in FIRST_PLOT_STEPS:
        row(f"  first plot at once, step: {name}", summary(samples[name]))


def first_plot_step_sample(page: EnginePage) -> dict[str, float]:
    """One session, created at once, taking the first plot's steps: ms per step."""
    fresh = create(page)
    sample: dict[str, float] = {}
    for name, code in FIRST_PLOT_STEPS:
        result, ms = run(page, fresh, code, timeoutMs=PLOT_TIMEOUT_MS)
        if result["outcome"] != "OUTCOME_OK":
            raise RuntimeError(f"the step {name!r} failed: {result['outcome']}")
        if "figure" in name and not result["displays"]:
            raise RuntimeError(f"the step {name!r} captured no figure")
        sample[name] = ms
    close(page, fresh)
    return sample


NO_IDLE_PRELOAD = """async () => {
  await wasmbox.Sandbox.warmup({ idlePackages: [] });
  await wasmbox.Sandbox.cooldown();
  await wasmbox.Sandbox.warmup({ idlePackages: [] });
}"""


def no_idle_preload(page: EnginePage) -> None:
    """The page's spares preload nothing while idle, the one there now included."""
    page.evaluate(NO_IDLE_PRELOAD)


def first_plots(page: EnginePage, runs: int, row: Row) -> None:
    """Every first-plot row: at once (whole, then step by step), after a quiet page's idle time,
    and what a session that claims the spare mid-preload pays; leaves the page a new document."""
    first_plot(page, runs, row)
    first_plot_steps(page, runs, row)
    quiet_first_plot(page, runs, row)
    claimed_mid_preload(page, row)


# A page's first plot as a user meets it: the page warmed its spare at load and has been open and
# quiet for a while (a question typed, the model's answer) when the session is created and plots
# at once. A new document per sample, the spare's idle matplotlib preload on (the default) and
# off (`idlePackages: []`) in turn, so both see the same load. The cell says whether pyplot was
# imported before it began.
QUIET_PAGE_S = (5, 10)
PRELOADED = "import sys\npre = 'matplotlib.pyplot' in sys.modules\n"
QUIET_FIRST_PLOT = """async ([idlePackages, openMs, code, timeoutMs]) => {
  await wasmbox.Sandbox.warmup(idlePackages ? { idlePackages } : {});
  await new Promise((resolve) => setTimeout(resolve, openMs - performance.now()));
  const t = performance.now();
  const sb = await wasmbox.Sandbox.create({ timeoutMs });
  const result = await sb.execute(code);
  const ms = performance.now() - t;
  await sb.close();
  if (result.outcome !== "OUTCOME_OK") throw new Error(`the plot failed: ${result.outcome}`);
  return { ms, preloaded: result.value["text/plain"] === "True" };
}"""
# A session that claims the spare while its idle preload is under way (0-2 s into it), then runs
# `1+1` ten times back to back: the preload goes on between the session's cells, and a cell that
# arrives during one of its steps waits for that step. Off: the same moment after the rehearsal.
CLAIM_OFFSETS_MS = (0, 500, 1000, 1500, 2000)
MID_PRELOAD = """async ([idlePackages, afterMs]) => {
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const marked = (name) => performance.getEntriesByName(`wasmbox:${name}`).length > 0;
  await wasmbox.Sandbox.warmup(idlePackages ? { idlePackages } : {});
  const until = performance.now() + 120000;
  while (!marked("spare-rehearsed") && performance.now() < until) await sleep(20);
  if (idlePackages) await sleep(2000); // when the preload would have started
  else while (!marked("spare-idle-preload") && performance.now() < until) await sleep(20);
  await sleep(afterMs);
  const t0 = performance.now();
  const sb = await wasmbox.Sandbox.create();
  const first = await sb.execute("1+1");
  const t1 = performance.now();
  for (let i = 0; i < 9; i++) await sb.execute("1+1");
  const t2 = performance.now();
  await sb.close();
  if (first.outcome !== "OUTCOME_OK") throw new Error(`1+1 failed: ${first.outcome}`);
  return { first: t1 - t0, next: (t2 - t1) / 9 };
}"""


def new_document(page: EnginePage) -> None:
    """The same page navigated again: a new document, a new spare, warm HTTP caches."""
    href = page.evaluate("location.href")
    page.goto("about:blank")  # a repeat visit is a new document (Firefox aborts a same-URL one)
    page.goto(href)
    page.wait_for_function("window.sdkReady === true", timeout=PLOT_TIMEOUT_MS)


def quiet_first_plot(page: EnginePage, runs: int, row: Row) -> None:
    """A page's first plot after it has been open and quiet for QUIET_PAGE_S, with the spare's
    idle preload and without it, alternating; leaves the page a new document."""
    on, off = "idle preload on (default)", "idlePackages: []"
    modes: dict[str, list[str] | None] = {on: None, off: []}
    code = PRELOADED + FIRST_PLOT + "\npre"
    for seconds in QUIET_PAGE_S:
        samples: dict[str, list[float]] = {mode: [] for mode in modes}
        preloaded = dict.fromkeys(modes, 0)
        for n in range(runs):
            for mode in list(modes) if n % 2 == 0 else list(reversed(modes)):
                new_document(page)
                args = [modes[mode], seconds * 1000, code, PLOT_TIMEOUT_MS]
                timed = page.evaluate(QUIET_FIRST_PLOT, args)
                samples[mode].append(float(timed["ms"]))
                preloaded[mode] += bool(timed["preloaded"])
        for mode in modes:
            before = f"  pyplot imported before: {preloaded[mode]}/{runs}"
            row(f"first plot, page open {seconds} s, {mode}", summary(samples[mode]) + before)
        ratio = statistics.median(samples[on]) / statistics.median(samples[off])
        row(f"  page open {seconds} s: on / off (medians)", f"{ratio:8.2f}x")


def claimed_mid_preload(page: EnginePage, row: Row) -> None:
    """A session claiming the spare 0-2 s into its idle preload, against the same moment with
    the preload off (alternating): create + the first `1+1`, and each of the next nine."""
    modes: dict[str, list[str] | None] = {"spare claimed mid-preload": None, "idlePackages: []": []}
    first: dict[str, list[float]] = {mode: [] for mode in modes}
    following: dict[str, list[float]] = {mode: [] for mode in modes}
    for n, offset in enumerate(CLAIM_OFFSETS_MS):
        for mode in list(modes) if n % 2 == 0 else list(reversed(modes)):
            new_document(page)
            timed = page.evaluate(MID_PRELOAD, [modes[mode], offset])
            first[mode].append(float(timed["first"]))
            following[mode].append(float(timed["next"]))
    for mode in modes:
        row(f"create + first 1+1, {mode}", summary(first[mode]))
        row(f"  each next 1+1 (9 back to back), {mode}", summary(following[mode]))


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
