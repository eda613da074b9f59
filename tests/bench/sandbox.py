"""Sandbox figures (`make bench-sandbox BROWSER=chromium,firefox,webkit`): the rows W1–W11 of
shared/bench/WORKLOADS.md through the SDK, in each engine named (cross-origin isolated app page, or
a plain one where the engine cannot run isolated: tests/support/engines ENGINE_GAPS), plus `create`
from the warm spare, 10 MB / 100 MB files in and out, and issue 27's rows: 10,000 empty files in
one run, a session's first plot, and a seaborn pairplot next to native CPython
(tests/bench/files_plots.py, shared with bench-reliability). W10, W11: tests/bench/sessions.py.
W1–W4 and the 10,000 files also in raw Pyodide (tests/bench/raw.py), in the same run: in a Node
worker (W1–W4) and in a plain worker of each engine, with each row's ratio to both. `--only raw`
prints those rows alone; `--only files` the 10,000 files alone, beside raw Pyodide's in a plain
worker of the same browser kept across runs as a sandbox is, a run of each in turn, with their
ratio; `--only plots` the plot rows alone, `--only first-plot` the first-plot rows without the
pairplot (at once on a device that has not kept the plot-ready snapshot and on one that has, at
once, on a page open and quiet 5 and 10 s with the spare's idle preload on and off, and a session
claiming the spare mid-preload; `--only first-plot-devices` the first of these alone, and on the
device that has, a session created once its spare has rehearsed), `--only plot-steps` the first
plot's steps alone; `--only sessions` prints W2, W10 and W11 alone, `--only w11` W11 alone, `--only
tools` W2 and a no-op host tool's round trip (awaited, and synchronous in interrupt mode), `--only
w2` W2 beside raw Pyodide's in a plain worker of the same browser, a sample of each in turn (and of
the baseline's, below), each turn begun once the browser is idle (tests/bench/quiet.py), raw
Pyodide's both in a worker booted just before (as W1–W4 take it) and in one booted a turn before
and idle since, as a sandbox's spare is, `--only describe` the agent's file preview (describeFiles
of a 50 MB CSV and of 20 files) alone. With WASMBOX_BENCH_BASELINE=DIR also DIR's build,
alternating: in W11, in the describe rows, in W2 and W4 of `--only raw`, in `--only w2`, in `--only
files`, in `--only plot-steps` and in the first plot on each device. Several engines: measured one
after another, then one table with a column per engine; a row that failed in an engine gives the
reason in its cell. Prints figures only, nothing here asserts a time."""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tests.bench import files_plots, quiet, raw, sessions
from tests.bench.checkout_server import checkout_server, isolation
from tests.bench.raw import W1, W2, W3, W4
from tests.bench.stats import summary
from tests.browser.sandbox.conftest import SDK_PAGE, app_with_page_headers
from tests.support.engines import ENGINES, EngineBrowser, EnginePage, launch
from tests.support.servers import running

RUNS = 5
BOOT_TIMEOUT_MS = 180_000
W7_URLLIB = "import urllib.request; urllib.request.urlopen('http://127.0.0.1:18999/')"
W7_FETCH = "from js import fetch; await fetch('http://127.0.0.1:18999/')"

# In-page helpers: each returns milliseconds (and whatever else the row prints).
TIME_RUN = """async ([code, create, opts]) => {
  const t0 = performance.now();
  const sb = await wasmbox.Sandbox.create(create);
  const t1 = performance.now();
  const r = await sb.execute(code, opts);
  const t2 = performance.now();
  await sb.close();
  return { create: t1 - t0, run: t2 - t1, total: t2 - t0, outcome: r.outcome,
           stdout: r.stdout.length, stateLost: r.stateLost };
}"""
WARM_CALLS = """async (code) => {
  const sb = await wasmbox.Sandbox.create();
  await sb.execute(code);
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await sb.execute(code);
    times.push(performance.now() - t);
  }
  await sb.close();
  return times;
}"""
# A no-op host tool's round trip (Python → page → Python): N calls in one run, less an empty
# run's time, per call; awaited, and synchronous where the mode can block.
TOOL_ROUND_TRIP = """async (n) => {
  const noop = { description: "does nothing", parameters: {}, handler: () => null };
  const sb = await wasmbox.Sandbox.create({ tools: { noop } });
  const time = async (code) => {
    const t = performance.now();
    const r = await sb.execute(code);
    if (r.outcome !== "OUTCOME_OK") throw new Error(`${r.error?.name}: ${r.error?.message}`);
    return performance.now() - t;
  };
  await time("from wasmbox import tools");
  const base = await time("import asyncio\\nawait asyncio.sleep(0)");
  const loop = (call) => `from wasmbox import tools\\nimport asyncio\\nawait asyncio.sleep(0)\\n` +
    `for _ in range(${n}):\\n    ${call}`;
  const awaited = ((await time(loop("await tools.noop()"))) - base) / n;
  // From a plain function: a call straight from the awaiting cell would give an awaitable.
  const blocking = loop("(lambda: tools.noop())()");
  const sync = sb.mode === "interrupt" ? ((await time(blocking)) - base) / n : null;
  const mode = sb.mode;
  await sb.close();
  return { mode, awaited, sync };
}"""
TOOL_CALLS = 200
W5_W6 = """async () => {
  const sb = await wasmbox.Sandbox.create();
  let t = performance.now();
  await sb.execute("x = 41");
  const r5 = await sb.execute("print(x + 1)");
  const w5 = performance.now() - t;
  t = performance.now();
  const r6 = await sb.execute("while True: pass", { timeoutMs: 2000 });
  const back = performance.now() - t - 2000;
  t = performance.now();
  const after = await sb.execute("print(x)");
  const next = performance.now() - t;
  await sb.close();
  const kept = after.stdout === "41\\n";
  return { w5, w5ok: r5.stdout === "42\\n", back, next, kept, lost: r6.stateLost };
}"""
FILES = """async (mb) => {
  const sb = await wasmbox.Sandbox.create();
  const data = new Uint8Array(mb * 1024 * 1024 - 1024);
  let t = performance.now();
  await sb.writeFile("blob.bin", data);
  const put = performance.now() - t;
  t = performance.now();
  const back = await sb.readFile("blob.bin");
  const get = performance.now() - t;
  await sb.close();
  return { put, get, ok: back.byteLength === data.byteLength };
}"""
# The agent's file preview (describeFiles): a 50 MB CSV alone, then 20 files of each kind; the
# first call reads the files, the second finds them unchanged (the kernel keeps descriptions).
DESCRIBE = """async () => {
  const sb = await wasmbox.Sandbox.create();
  const line = "2026-01-01,north,12345.678,some text to make the line longer\\n";
  const csv = "day,region,amount,note\\n" + line.repeat(Math.ceil((50 << 20) / line.length));
  await sb.writeFile("big.csv", csv);
  let t = performance.now();
  const big = await sb.describeFiles();
  const bigFirst = performance.now() - t;
  await sb.execute("import os; os.remove('big.csv')");
  for (let i = 0; i < 20; i++) {
    const kind = ["csv", "json", "jsonl", "txt"][i % 4];
    const body = kind === "csv" ? "a,b,c\\n" + "1,2.5,x\\n".repeat(2000)
      : kind === "json" ? JSON.stringify(Array.from({ length: 500 }, (_, n) => ({ n, v: n / 2 })))
      : kind === "jsonl" ? '{"k": 1, "s": "t"}\\n'.repeat(2000) : "text\\n".repeat(2000);
    await sb.writeFile(`f${i}.${kind}`, body);
  }
  t = performance.now();
  const dir = await sb.describeFiles();
  const dirFirst = performance.now() - t;
  t = performance.now();
  await sb.describeFiles();
  const dirAgain = performance.now() - t;
  await sb.close();
  return { bigFirst, dirFirst, dirAgain, bigChars: big.length, dirChars: dir.length };
}"""


def visit(page: EnginePage, url: str) -> EnginePage:
    page.goto("about:blank")  # a repeat visit is a new document (Firefox aborts a same-URL one)
    page.goto(f"{url}{SDK_PAGE}")
    page.wait_for_function("window.sdkReady === true", timeout=BOOT_TIMEOUT_MS)
    return page


def open_page(browser: EngineBrowser, url: str) -> EnginePage:
    """A new page: its own storage and HTTP cache."""
    return visit(browser.new_page(), url)


def cold_start(browser: EngineBrowser, url: str, runs: int, same_page: bool) -> list[float]:
    """W1 from navigation start to the first result; a new page has a cold HTTP cache, a repeat
    visit (the same page navigated again) a warm one."""
    page = browser.new_page()
    samples = []
    for run in range(runs):
        if run and not same_page:
            page.close()
            page = browser.new_page()
        visit(page, url)
        samples.append(
            page.evaluate(
                "async (code) => { const sb = await wasmbox.Sandbox.create();"
                " await sb.execute(code); return performance.now(); }",
                W1,
            )
        )
    page.close()
    return samples


# Warm a spare with `packages`, wait (idle, as a user typing) until the last one is imported, then
# time `code` on it.
WARMED = """async ([code, packages]) => {
  await wasmbox.Sandbox.warmup({ packages });
  const sb = await wasmbox.Sandbox.create();
  const probe = `import sys\\n${JSON.stringify(packages[packages.length - 1])} in sys.modules`;
  const loaded = async () => (await sb.execute(probe)).value["text/plain"] === "True";
  // A claimed spare preloads only in the session's pauses (1 s without a request).
  while (!(await loaded())) await new Promise((resolve) => setTimeout(resolve, 1200));
  const t = performance.now();
  await sb.execute(code);
  return performance.now() - t;
}"""


def warmed(browser: EngineBrowser, url: str, code: str, packages: list[str]) -> list[float]:
    samples = []
    for _ in range(RUNS):
        page = open_page(browser, url)  # a new page: a new spare
        samples.append(float(page.evaluate(WARMED, [code, packages])))
        page.close()
    return samples


def first_of_page(browser: EngineBrowser, url: str, code: str) -> list[float]:
    """`code` as a page's first session: a new document (warm caches, a cold interpreter), its
    spare left idle 3 s (a user typing) before the sandbox is created."""
    page = browser.new_page()
    samples = []
    for run in range(RUNS + 1):  # the first visit fills the caches
        visit(page, url)
        page.evaluate("wasmbox.Sandbox.warmup()")
        time.sleep(3)
        sample = page.evaluate(TIME_RUN, [code, {}, {}])["run"]
        if run:
            samples.append(sample)
    page.close()
    return samples


def repeat(
    page: EnginePage, code: str, key: str, create: dict[str, Any] | None = None
) -> list[Any]:
    return [page.evaluate(TIME_RUN, [code, create or {}, {}])[key] for _ in range(RUNS)]


class Row(Protocol):
    """Prints a row; given its samples, keeps them for the ratios to raw Pyodide."""

    def __call__(self, label: str, text: str, samples: list[float] | None = None) -> None: ...


# Sandbox rows set beside raw Pyodide's (tests/bench/raw.py): the label, and the raw row.
RAW_ROWS = {
    "W1 cold start, warm browser cache (repeat visit)": "W1",
    "W2 warm round trip 1+1 (5 calls x 5 sessions)": "W2",
    "W3 first numpy import + sum (not preloaded)": "W3",
    "W4 pandas group/sum/top 5": "W4",
    files_plots.WHOLE_ROW: "files",
    files_plots.LOOP_ROW: "files loop",
}


IN_BROWSER = "raw Pyodide in this browser"


class Table:
    """Rows in the order first seen, a cell per engine; a section that failed in an engine gives
    its reason in the cells of the rows it would have printed there."""

    def __init__(self, engines: list[str]) -> None:
        self.engines = engines
        self.cells: dict[str, dict[str, str]] = {}
        self.section_of: dict[str, str] = {}
        self.failed: dict[tuple[str, str], str] = {}
        self.placeholders: set[str] = set()  # a failed section's own row, until it prints rows
        self.samples: dict[tuple[str, str], list[float]] = {}
        # Raw Pyodide's samples per engine, W1–W4 (tests/bench/raw.py `in_browser`).
        self.floors: dict[str, dict[str, list[float]]] = {}

    def writer(self, engine: str, section: str) -> Row:
        def row(label: str, text: str, samples: list[float] | None = None) -> None:
            if samples:
                self.samples[(engine, label)] = samples
            self.section_of.setdefault(label, section)
            self.cells.setdefault(label, {})[engine] = text.strip()
            if len(self.engines) == 1:  # one engine: print as it comes, as before
                print(f"{label:<58} {text}", flush=True)

        return row

    def fail(self, engine: str, section: str, error: BaseException) -> None:
        reason = " ".join(str(error).replace("|", "/").split())[:160] or type(error).__name__
        self.failed[(engine, section)] = reason
        if len(self.engines) == 1:
            print(f"{section:<58} not run: {reason}", flush=True)
        if not any(s == section for s in self.section_of.values()):
            self.section_of.setdefault(section, section)
            self.cells.setdefault(section, {})
            self.placeholders.add(section)

    def cell(self, label: str, engine: str) -> str:
        if engine in self.cells[label]:
            return self.cells[label][engine]
        reason = self.failed.get((engine, "engine")) or self.failed.get(
            (engine, self.section_of[label])
        )
        return f"not run: {reason}" if reason else "n/a"

    def markdown(self, heads: dict[str, str]) -> str:
        lines = [
            "| row | " + " | ".join(heads.get(e, e) for e in self.engines) + " |",
            "| --- |" + " --- |" * len(self.engines),
        ]
        for label in self.cells:
            section = self.section_of[label]
            if label in self.placeholders and any(
                self.section_of[o] == section for o in self.cells if o != label
            ):
                continue  # a section that failed somewhere, shown by the rows it printed elsewhere
            cells = " | ".join(self.cell(label, e) for e in self.engines)
            lines.append(f"| {label} | {cells} |")
        return "\n".join(lines)


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(engine: str, only: str, table: Table) -> str:
    """Every row in one engine; returns the column's head (engine and version)."""
    isolated = isolation(engine) == "isolated"
    with running(app_with_page_headers(isolated)) as url, launch(engine) as browser:
        served = "COOP/COEP" if isolated else "plain (cannot run isolated)"
        table.writer(engine, "engine")(
            "engine", f"{browser.name} {browser.version}, page served {served}"
        )
        table.writer(engine, "engine")("load at the start", load())
        state: dict[str, Any] = {}

        def section(name: str, body: Callable[[Row], None]) -> None:
            try:
                body(table.writer(engine, name))
            except Exception as error:  # a row that cannot run here says why in its cell
                table.fail(engine, name, error)

        if only in ("all", "raw"):
            section(IN_BROWSER, lambda row: browser_floor(browser, url, engine, table))
        if only == "raw":  # the rows set beside raw Pyodide's, alone
            section("W1 cold", lambda row: w1_repeat_visit(browser, url, row))
            opened = state.setdefault("page", open_page(browser, url))
            section("W2, W4", lambda row: w2_w4_against_baseline(browser, opened, row))
            section("W3", lambda row: w3_first(opened, row))
            section("many files", lambda row: files_and_plots(opened, "files", row))
            close(state)
            return f"{browser.name} {browser.version}"
        if only == "w11":
            section("W11", lambda row: w11_against_baseline(browser, url, row))
            return f"{browser.name} {browser.version}"
        if only == "w2":
            section("W2 beside raw", lambda row: w2_beside_raw(browser, url, row))
            table.writer(engine, "engine")("load at the end", load())
            return f"{browser.name} {browser.version}"
        if only == "sessions":
            opened = state.setdefault("page", open_page(browser, url))
            section("W2, W10", lambda row: w2_w10(opened, row))
            close(state)
            section("W11", lambda row: sessions.w11(browser, url, RUNS, visit, row))
            return f"{browser.name} {browser.version}"
        # The parts measured on one page of their own: their section's name and body.
        one_page: dict[str, tuple[str, Callable[[EnginePage, Row], None]]] = {
            "tools": ("W2, host tools", w2_tools),
            "describe": ("describe", lambda page, row: describe(browser, page, row)),
            "files": (
                "many files",
                lambda page, row: many_files_beside_raw(browser, url, page, row),
            ),
            "plots": ("plots", lambda page, row: files_and_plots(page, "plots", row)),
            "first-plot": ("first plot", first_plots),
            "plot-steps": (
                "first plot's steps",
                lambda page, row: plot_steps_against_baseline(browser, page, row),
            ),
        }
        if only in ("first-plot", "first-plot-devices"):
            section("first plot, devices", lambda row: first_plot_devices(browser, url, row))
        if only == "first-plot-devices":
            return f"{browser.name} {browser.version}"
        if only in one_page:
            name, body = one_page[only]
            opened = state.setdefault("page", open_page(browser, url))
            section(name, lambda row: body(opened, row))
            close(state)
            return f"{browser.name} {browser.version}"
        section("W1 cold", lambda row: w1_cold(browser, url, row))
        section("W1 warm spare", lambda row: w1_spare(browser, url, state, row))
        section("W2, W10", lambda row: w2_w10(shared(state), row))
        section("W3", lambda row: w3(browser, url, shared(state), row))
        section("W4", lambda row: w4(browser, url, shared(state), row))
        section("W5, W6", lambda row: w5_w6(shared(state), row))
        section("W7", lambda row: w7(shared(state), row))
        section("W8", lambda row: w8(shared(state), row))
        section("W9", lambda row: w9(shared(state), row))
        section("files", lambda row: files(shared(state), row))
        section("describe", lambda row: describe(browser, shared(state), row))
        section("many files", lambda row: files_and_plots(shared(state), "files", row))
        section("plots", lambda row: files_and_plots(shared(state), "plots", row))
        close(state)
        section("W11", lambda row: sessions.w11(browser, url, RUNS, visit, row))
        table.writer(engine, "engine")("load at the end", load())
        return f"{browser.name} {browser.version}"


def browser_floor(browser: EngineBrowser, url: str, engine: str, table: Table) -> None:
    """Raw Pyodide's W1–W4 in this engine (a plain page and worker), kept for `raw_rows`."""
    table.floors[engine] = raw.in_browser(browser, url, RUNS)


def w2_w4_against_baseline(browser: EngineBrowser, page: EnginePage, row: Row) -> None:
    """W2 and W4; with WASMBOX_BENCH_BASELINE=DIR (a built checkout), DIR's build too, a
    sample of each in turn, so both see the same load."""
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    if not baseline:
        w2(page, row)
        w4_first(page, row)
        return
    with checkout_server(Path(baseline), browser.name) as baseline_url:
        other = open_page(browser, baseline_url)
        ours: dict[str, list[float]] = {"W2": [], "W4": []}
        theirs: dict[str, list[float]] = {"W2": [], "W4": []}
        for _ in range(RUNS):
            for target, into in ((page, ours), (other, theirs)):
                into["W2"] += target.evaluate(WARM_CALLS, W2)
                into["W4"].append(target.evaluate(TIME_RUN, [W4, {}, {}])["run"])
        other.close()
    for key, label in (
        ("W2", "W2 warm round trip 1+1 (5 calls x 5 sessions)"),
        ("W4", "W4 pandas group/sum/top 5"),
    ):
        row(label, summary(ours[key]), ours[key])
        row(f"{key} same, baseline {Path(baseline).name}", summary(theirs[key]))
        ratio = statistics.median(ours[key]) / statistics.median(theirs[key])
        row(f"{key} this build / baseline (medians)", f"{ratio:8.2f}x")


def w2_beside_raw(browser: EngineBrowser, url: str, row: Row) -> None:
    """W2 in this build and raw Pyodide's W2 in a plain worker of this browser, a sample of each
    in turn so both see the same load; with WASMBOX_BENCH_BASELINE=DIR (a built checkout), DIR's
    build too, in the same turns."""
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    with contextlib.ExitStack() as stack:
        pages: dict[str, tuple[EnginePage, Callable[[EnginePage], list[float]]]] = {
            "this build": (open_page(browser, url), lambda page: page.evaluate(WARM_CALLS, W2)),
            "raw": (raw.open_page(browser, url), raw.warm_calls),
            "raw spare": (raw.open_spare_page(browser, url), raw.spare_calls),
        }
        if baseline:
            baseline_url = stack.enter_context(checkout_server(Path(baseline), browser.name))
            pages["baseline"] = (open_page(browser, baseline_url), pages["this build"][1])
        samples: dict[str, list[float]] = {name: [] for name in pages}
        waits: list[quiet.Waited] = []
        for _ in range(RUNS):
            for name, (page, calls) in pages.items():
                # Each turn once the browser is idle: without this, each turn shared the cores
                # with the spare the page before it was refilling (CHANGELOG.md).
                waits.append(quiet.wait_until_quiet())
                samples[name] += calls(page)
        for page, _ in pages.values():
            page.close()
    ours = statistics.median(samples["this build"])
    floor = statistics.median(samples["raw spare"])
    row("W2 warm round trip 1+1 (5 calls x 5 sessions)", summary(samples["this build"]))
    row("W2 raw Pyodide (this browser, same turns)", summary(samples["raw"]))
    row("W2 raw Pyodide, a worker booted a turn before", summary(samples["raw spare"]))
    just_booted = statistics.median(samples["raw"])
    row("W2 ratio wasmbox / raw Pyodide just booted", f"{ours / just_booted:8.2f}x")
    row("W2 ratio wasmbox / raw Pyodide (medians)", f"{ours / floor:8.2f}x")
    if baseline:
        theirs = statistics.median(samples["baseline"])
        row(f"W2 same, baseline {Path(baseline).name}", summary(samples["baseline"]))
        row("W2 baseline / raw Pyodide (medians)", f"{theirs / floor:8.2f}x")
        row("W2 this build / baseline (medians)", f"{ours / theirs:8.2f}x")
    row("W2 turns begun with the browser idle", quiet.summary(waits))
    row("load after the W2 rows", load())


# A session created as soon as the page's spare has booted (no idle time), its first plot.
# `rehearsed`: the session is created once the spare has rehearsed (a user's pause), not at once.
PLOT_AT_ONCE = """async ([code, timeoutMs, rehearsed]) => {
  await wasmbox.Sandbox.warmup();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const done = () => performance.getEntriesByName("wasmbox:spare-rehearsed").length > 0;
  while (rehearsed && !done()) await sleep(50);
  const t0 = performance.now(); // since the navigation: the page's spare has booted
  const sb = await wasmbox.Sandbox.create({ timeoutMs });
  const t1 = performance.now();
  const result = await sb.execute(code);
  const t2 = performance.now();
  const snapshot = (await sb.environment()).snapshot;
  await sb.close();
  if (result.outcome !== "OUTCOME_OK" || !result.displays.length)
    throw new Error(`the plot failed: ${result.outcome}`);
  return { ready: t0, create: t1 - t0, plot: t2 - t1, snapshot };
}"""
# The page's first spare, once it has been quiet, keeps the plot-ready snapshot's files.
KEEP_PLOT_SNAPSHOT = """async (timeoutMs) => {
  const kept = () => performance.getEntriesByName("wasmbox:plot-snapshot-kept").length > 0;
  await wasmbox.Sandbox.warmup();
  const until = performance.now() + timeoutMs;
  while (!kept() && performance.now() < until) await new Promise((r) => setTimeout(r, 200));
  return kept();
}"""


def first_plot_devices(browser: EngineBrowser, url: str, row: Row) -> None:
    """A first plot at once in a new document, on a device (browser storage) that has not kept
    the plot-ready snapshot (a new page each sample) and on one that has (one page, visited again
    each sample); with WASMBOX_BENCH_BASELINE=DIR, DIR's build on both devices too. A sample of
    each in turn, so all see the same load."""
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    code = files_plots.FIRST_PLOT
    args = [code, files_plots.PLOT_TIMEOUT_MS, False]
    after_rehearsal = [code, files_plots.PLOT_TIMEOUT_MS, True]
    fresh_name = "this build, device without the plot-ready snapshot"
    kept_name = "this build, device that kept the plot-ready snapshot"
    with contextlib.ExitStack() as stack:
        builds = {fresh_name: url}
        kept_builds = {kept_name: url}
        if baseline:
            where = stack.enter_context(checkout_server(Path(baseline), browser.name))
            builds[f"baseline {Path(baseline).name}"] = where
            kept_builds[f"baseline {Path(baseline).name}, device that kept it"] = where
        kept_pages = {}
        for name, where in kept_builds.items():
            page = stack.enter_context(contextlib.closing(open_page(browser, where)))
            if not page.evaluate(KEEP_PLOT_SNAPSHOT, files_plots.PLOT_TIMEOUT_MS):
                raise RuntimeError(f"{name}: the page did not keep the plot-ready snapshot")
            page.goto("about:blank")  # its next spare boots on no other sample's time
            kept_pages[name] = (page, where)
        rehearsed = {name: f"{name}, after its spare rehearsed" for name in kept_builds}
        names = [*builds, *kept_builds, *rehearsed.values()]
        samples: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        for _ in range(RUNS):
            for name, where in builds.items():
                page = open_page(browser, where)
                samples[name].append(page.evaluate(PLOT_AT_ONCE, args))
                page.close()
            for name, (page, where) in kept_pages.items():
                samples[name].append(visit(page, where).evaluate(PLOT_AT_ONCE, args))
                page.goto("about:blank")
                sample = visit(page, where).evaluate(PLOT_AT_ONCE, after_rehearsal)
                samples[rehearsed[name]].append(sample)
                page.goto("about:blank")
    for name, taken in samples.items():
        plots = [float(t["plot"]) for t in taken]
        booted = ", ".join(sorted({str(t["snapshot"]) for t in taken}))
        when = "after a pause" if name in rehearsed.values() else "at once"
        row(f"first plot {when}, {name}", summary(plots) + f"  booted: {booted}", plots)
        row(f"  create, {name}", summary([float(t["create"]) for t in taken]))
        row(f"  spare booted, from navigation, {name}", summary([float(t["ready"]) for t in taken]))
    if baseline:
        ours_names = fresh_name, kept_name, rehearsed[kept_name]
        theirs = list(builds)[1], list(kept_builds)[1], list(rehearsed.values())[1]
        for ours, base in zip(ours_names, theirs, strict=True):
            for key, what in (("plot", "first plot"), ("ready", "spare booted")):
                mine = statistics.median(float(t[key]) for t in samples[ours])
                their = statistics.median(float(t[key]) for t in samples[base])
                label = ours.removeprefix("this build, ")
                row(f"  {what}, {label} / baseline's (medians)", f"{mine / their:8.2f}x")
    row("load after the first-plot device rows", load())


def w11_against_baseline(browser: EngineBrowser, url: str, row: Row) -> None:
    """W11; with WASMBOX_BENCH_BASELINE=DIR (a built checkout), DIR's build too, alternating."""
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    if not baseline:
        return sessions.w11(browser, url, RUNS, visit, row)
    with checkout_server(Path(baseline), browser.name) as baseline_url:
        sessions.w11(browser, url, RUNS, visit, row, baseline_url)


def shared(state: dict[str, Any]) -> EnginePage:
    """The page the W1 warm-spare row opened, which the later rows reuse."""
    if "page" not in state:
        raise RuntimeError("the shared page did not open (see the W1 warm spare row)")
    page: EnginePage = state["page"]
    return page


def close(state: dict[str, Any]) -> None:
    page = state.pop("page", None)
    if page is not None:
        with contextlib.suppress(Exception):  # an engine that lost the page: nothing to close
            page.close()


def w1_cold(browser: EngineBrowser, url: str, row: Row) -> None:
    row(
        "W1 cold start, cold browser cache (new page)",
        summary(cold_start(browser, url, RUNS, False)),
    )
    w1_repeat_visit(browser, url, row)


def w1_repeat_visit(browser: EngineBrowser, url: str, row: Row) -> None:
    samples = cold_start(browser, url, RUNS + 1, True)[1:]
    row("W1 cold start, warm browser cache (repeat visit)", summary(samples), samples)


def w1_spare(browser: EngineBrowser, url: str, state: dict[str, Any], row: Row) -> None:
    page = state["page"] = open_page(browser, url)
    page.evaluate("wasmbox.Sandbox.warmup()")
    mode = page.evaluate("async () => (await (await wasmbox.Sandbox.create()).environment()).mode")
    row("mode (environment().mode)", mode)
    spare_create, spare_total = [], []
    for _ in range(RUNS):
        time.sleep(3)  # let the spare boot again
        sample = page.evaluate(TIME_RUN, ["print(1+1)", {}, {}])
        spare_create.append(sample["create"])
        spare_total.append(sample["total"])
    row("W1 warm spare: create + print(1+1)", summary(spare_total))
    row("create from the warm spare", summary(spare_create))


def w2(page: EnginePage, row: Row) -> list[float]:
    warm = [t for _ in range(RUNS) for t in page.evaluate(WARM_CALLS, W2)]
    row("W2 warm round trip 1+1 (5 calls x 5 sessions)", summary(warm), warm)
    return warm


def w2_alone(page: EnginePage, row: Row) -> None:
    w2(page, row)


def w2_w10(page: EnginePage, row: Row) -> None:
    warm = w2(page, row)
    tool_round_trip(page, row)
    sessions.w10(page, statistics.median(warm), RUNS, row)


def w2_tools(page: EnginePage, row: Row) -> None:
    w2(page, row)
    tool_round_trip(page, row)


def tool_round_trip(page: EnginePage, row: Row) -> None:
    """Next to W2: a no-op host tool called from Python, per call, in this page's mode."""
    samples = [page.evaluate(TOOL_ROUND_TRIP, TOOL_CALLS) for _ in range(RUNS)]
    mode = samples[0]["mode"]
    row(f"host tool no-op round trip, awaited ({mode})", summary([s["awaited"] for s in samples]))
    if mode == "interrupt":
        row("host tool no-op round trip, synchronous", summary([s["sync"] for s in samples]))
    else:
        row("host tool no-op round trip, synchronous", "not in terminate-only mode (needs await)")


def w3_first(page: EnginePage, row: Row) -> None:
    samples = repeat(page, W3, "run")
    row("W3 first numpy import + sum (not preloaded)", summary(samples), samples)


def w4_first(page: EnginePage, row: Row) -> None:
    samples = repeat(page, W4, "run")
    row("W4 pandas group/sum/top 5", summary(samples), samples)


def w3(browser: EngineBrowser, url: str, page: EnginePage, row: Row) -> None:
    code = W3
    w3_first(page, row)
    row(
        "W3 same, numpy asked for at create (loads meanwhile)",
        summary(repeat(page, code, "run", {"packages": ["numpy"]})),
    )
    row("W3 same, spare preloaded numpy while idle", summary(warmed(browser, url, code, ["numpy"])))
    row("W3 same, a page's first session", summary(first_of_page(browser, url, code)))


def w4(browser: EngineBrowser, url: str, page: EnginePage, row: Row) -> None:
    w4_first(page, row)
    row("W4 same, a page's first session", summary(first_of_page(browser, url, W4)))
    row(
        "W4 same, spare preloaded numpy+pandas while idle",
        summary(warmed(browser, url, W4, ["numpy", "pandas"])),
    )


def w5_w6(page: EnginePage, row: Row) -> None:
    w56 = [page.evaluate(W5_W6) for _ in range(RUNS)]
    row(
        "W5 state: x = 41 then print(x + 1)",
        summary([s["w5"] for s in w56]) + f"  correct={all(s['w5ok'] for s in w56)}",
    )
    row("W6 control back after a 2 s deadline (minus 2000 ms)", summary([s["back"] for s in w56]))
    kept = sum(s["kept"] for s in w56)
    row(
        "W6 next result after the deadline",
        summary([s["next"] for s in w56]) + f"  state kept {kept}/{len(w56)}",
    )


def w7(page: EnginePage, row: Row) -> None:
    for label, code in (("urllib", W7_URLLIB), ("js fetch", W7_FETCH)):
        samples = [page.evaluate(TIME_RUN, [code, {"policy": "off"}, {}]) for _ in range(RUNS)]
        row(
            f"W7 network attempt ({label})",
            summary([s["run"] for s in samples]) + f"  outcome={samples[0]['outcome']}",
        )


def w8(page: EnginePage, row: Row) -> None:
    for size in ("3_000_000_000", "2_000_000_000"):
        samples = [page.evaluate(TIME_RUN, [f"x = bytearray({size})", {}, {}]) for _ in range(RUNS)]
        row(
            f"W8 bytearray({size})",
            summary([s["run"] for s in samples]) + f"  outcome={samples[0]['outcome']}",
        )


def w9(page: EnginePage, row: Row) -> None:
    samples = [page.evaluate(TIME_RUN, ['print("x" * 50_000_000)', {}, {}]) for _ in range(RUNS)]
    row(
        "W9 50 MB print (capped)",
        summary([s["run"] for s in samples]) + f"  returned {samples[0]['stdout']} chars",
    )


def files(page: EnginePage, row: Row) -> None:
    for mb in (10, 100):
        moved = [page.evaluate(FILES, mb) for _ in range(RUNS)]
        row(f"file {mb} MB in (writeFile)", summary([f["put"] for f in moved]))
        row(f"file {mb} MB out (readFile)", summary([f["get"] for f in moved]))


def files_and_plots(page: EnginePage, part: str, row: Row) -> None:
    """Issue 27's rows: 10,000 empty files in one run (a sandbox of the default policy), or a
    session's first plot and the pairplot's time next to native CPython's."""
    if part == "files":
        sandbox = files_plots.create(page)
        try:
            files_plots.many_files(page, sandbox, RUNS, row)
        finally:
            files_plots.close(page, sandbox)
        return
    files_plots.first_plots(page, RUNS, row)
    files_plots.pairplot(page, RUNS, row)


def first_plots(page: EnginePage, row: Row) -> None:
    files_plots.first_plots(page, RUNS, row)


def beside_baseline(
    browser: EngineBrowser,
    page: EnginePage,
    baseline: str,
    sample: Callable[[EnginePage], Any],
    prepare: Callable[[EnginePage], None] = lambda page: None,
) -> tuple[list[Any], list[Any]]:
    """RUNS samples on `page` and on a page of the built checkout `baseline`, one of each in
    turn, so both see the same load; `prepare` readies each page first."""
    with checkout_server(Path(baseline), browser.name) as baseline_url:
        other = open_page(browser, baseline_url)
        prepare(page)
        prepare(other)
        ours, theirs = [], []
        for _ in range(RUNS):
            ours.append(sample(page))
            theirs.append(sample(other))
        other.close()
    return ours, theirs


def plot_steps_against_baseline(browser: EngineBrowser, page: EnginePage, row: Row) -> None:
    """The first plot's steps in a session created at once; with WASMBOX_BENCH_BASELINE=DIR (a
    built checkout), DIR's build too, a session of each in turn, and each step's ratio."""
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    if not baseline:
        files_plots.first_plot_steps(page, RUNS, row)
        return
    # A page waits while the other samples: its spare would preload matplotlib meanwhile.
    ours, theirs = beside_baseline(
        browser, page, baseline, files_plots.first_plot_step_sample, files_plots.no_idle_preload
    )
    for name in ours[0]:
        mine, base = [s[name] for s in ours], [s[name] for s in theirs]
        row(f"  step: {name}", summary(mine))
        row(f"  step: {name}, baseline", summary(base))
        ratio = statistics.median(mine) / statistics.median(base)
        row(f"  step: {name}, this build / baseline (medians)", f"{ratio:8.2f}x")
    row("load after the steps", load())


def many_files_beside_raw(browser: EngineBrowser, url: str, page: EnginePage, row: Row) -> None:
    """The 10,000 files in this build and in raw Pyodide in a plain worker of this browser, kept
    across runs as a sandbox is (the same names again each run), a run of each in turn so both see
    the same load; with WASMBOX_BENCH_BASELINE=DIR (a built checkout), DIR's build too, in the
    same turns."""
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    code, timeout = files_plots.MANY_FILES, files_plots.FILES_TIMEOUT_MS

    def sandbox_runs(target: EnginePage) -> Callable[[], tuple[str, float]]:
        sandbox = files_plots.create(target)

        def once() -> tuple[str, float]:
            result, ms = files_plots.run(target, sandbox, code, timeoutMs=timeout)
            if result["outcome"] != "OUTCOME_OK":
                raise RuntimeError(f"the files run failed: {result['outcome']}")
            return str(result["stdout"]), ms

        return once

    with contextlib.ExitStack() as stack:
        floor_page = raw.open_page(browser, url)
        stack.callback(floor_page.close)
        worker = raw.keep_worker(floor_page)
        runs: dict[str, Callable[[], tuple[str, float]]] = {
            "this build": sandbox_runs(page),
            "raw": lambda: raw.run_kept(floor_page, worker, code),
        }
        if baseline:
            baseline_url = stack.enter_context(checkout_server(Path(baseline), browser.name))
            other = open_page(browser, baseline_url)
            stack.callback(other.close)
            runs["baseline"] = sandbox_runs(other)
        whole: dict[str, list[float]] = {name: [] for name in runs}
        loop: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(RUNS):
            for name, once in runs.items():
                stdout, ms = once()
                whole[name].append(ms)
                loop[name].append(float(stdout) * 1000)
    for label, samples in ((files_plots.LOOP_ROW, loop), (files_plots.WHOLE_ROW, whole)):
        ours, floor = samples["this build"], samples["raw"]
        row(label, summary(ours), ours)
        row(f"{label}, raw Pyodide (this browser, same turns)", summary(floor))
        ratio = statistics.median(ours) / statistics.median(floor)
        row(f"{label}: wasmbox / raw Pyodide (medians)", f"{ratio:8.2f}x")
        if baseline:
            theirs = samples["baseline"]
            row(f"{label}, baseline {Path(baseline).name}", summary(theirs))
            ratio = statistics.median(ours) / statistics.median(theirs)
            row(f"{label}: this build / baseline (medians)", f"{ratio:8.2f}x")
    loop_rate = files_plots.files_per_second(loop["this build"])
    row(f"{files_plots.LOOP_ROW} (rate)", summary(loop_rate, "files/s"))
    row("load after the files rows", load())


def describe(browser: EngineBrowser, page: EnginePage, row: Row) -> None:
    """The agent's file preview: what a message waits for before its first request. With
    WASMBOX_BENCH_BASELINE=DIR (a built checkout), DIR's build too, a sample of each in turn."""
    rows = {
        "bigFirst": "describeFiles: a 50 MB CSV",
        "dirFirst": "describeFiles: 20 files, first",
        "dirAgain": "describeFiles: 20 files, unchanged",
    }
    baseline = os.environ.get("WASMBOX_BENCH_BASELINE")
    if not baseline:
        samples = [page.evaluate(DESCRIBE) for _ in range(RUNS)]
        for key, label in rows.items():
            row(label, summary([s[key] for s in samples]))
        return
    ours, theirs = beside_baseline(browser, page, baseline, lambda p: p.evaluate(DESCRIBE))
    name = Path(baseline).name
    for key, label in rows.items():
        mine = [s[key] for s in ours]
        base = [s[key] for s in theirs]
        row(label, summary(mine), mine)
        row(f"{label}, baseline {name}", summary(base))
        ratio = statistics.median(mine) / statistics.median(base)
        row(f"{label}: this build / baseline", f"{ratio:8.2f}x")
    for key in ("bigChars", "dirChars"):
        chars = f"{ours[0][key]}, {theirs[0][key]}"
        row(f"preview characters ({key[:3]}): this build, baseline", chars)
    row("load after the describe rows", load())


def raw_pyodide(only: str) -> dict[str, list[float]] | None:
    """Raw Pyodide's W1–W4 in this run, before the engines' (None for rows without them)."""
    if only not in ("all", "raw"):
        return None
    print(f"raw Pyodide (Node worker), {load()}", flush=True)
    try:
        return raw.measure(RUNS)
    except Exception as error:  # the ratio rows then say why they are missing
        print(f"raw Pyodide not run: {error}", flush=True)
        return {}


def raw_rows(table: Table, node: dict[str, list[float]]) -> None:
    """Raw Pyodide's figures under each compared row's, in a Node worker and in a plain worker of
    the same engine, with the ratio of the medians (times: above 1 is slower than raw)."""
    for label, key in RAW_ROWS.items():
        for engine in table.engines:
            row = table.writer(engine, "raw Pyodide")
            ours = table.samples.get((engine, label))
            for where, floor in (("Node worker", node), ("this browser", table.floors.get(engine))):
                if floor is node and key not in raw.WORKLOADS:
                    continue  # W1–W4 only in Node
                samples = (floor or {}).get(key)
                if not samples:
                    failed = table.failed.get((engine, IN_BROWSER)) if floor is not node else None
                    reason = failed or "see above"
                    row(f"{key} raw Pyodide ({where})", f"not run ({reason})")
                    continue
                if key == "files loop":
                    text = summary(files_plots.files_per_second(samples), "files/s")
                else:
                    text = summary(samples)
                row(f"{key} raw Pyodide ({where})", text)
                ratio = (
                    f"{statistics.median(ours) / statistics.median(samples):8.2f}x"
                    if ours
                    else "n/a (the row did not run)"
                )
                row(f"{key} ratio wasmbox / raw Pyodide, {where} (medians)", ratio)


def engines_arg(text: str) -> list[str]:
    names = list(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    unknown = [n for n in names if n not in ENGINES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"{text!r}: name one or more of {', '.join(ENGINES)}, comma-separated"
        )
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--browser",
        type=engines_arg,
        default=["chromium"],
        help="engines, comma-separated (chromium,firefox,webkit): a column each",
    )
    parser.add_argument("--runs", type=int, default=5, help="samples per row")
    parser.add_argument(
        "--only",
        choices=[
            "all",
            "raw",
            "sessions",
            "w11",
            "w2",
            "tools",
            "describe",
            "files",
            "plots",
            "first-plot",
            "plot-steps",
            "first-plot-devices",
        ],
        default="all",
        help="which rows",
    )
    args = parser.parse_args()
    global RUNS
    RUNS = args.runs
    table = Table(args.browser)
    heads: dict[str, str] = {}
    floor = raw_pyodide(args.only)
    for engine in args.browser:  # one after another: engines never compete for the CPU
        try:
            heads[engine] = measure(engine, args.only, table)
        except Exception as error:  # the engine did not start: its column says why
            table.fail(engine, "engine", error)
    if floor is not None:
        raw_rows(table, floor)
    if len(args.browser) > 1:
        print(table.markdown(heads))


if __name__ == "__main__":
    main()
