"""The product's example tasks with a real local model (`make bench-agent`).

Qwen2.5-Coder-1.5B-Instruct Q4_K_M (tests/support/models.py) behind llama-cpp-python's server,
the real app (its SDK Agent) in Chromium through the backend proxy. For each task: solved or
not, steps (model requests), time, the reply form each run_python call came in, the invalid-call
events, and every failure as the page showed it. Prints a table per row; nothing asserts.

Rows, in one run against the same server: `on` (the app as shipped: file previews, repair hints,
the numbers check, ```python blocks run), `off` (the same app with `?assist=off`: none of the
three), `blocks-ask` (`?codeblocks=ask`: python blocks not run, the model asked for a tool call
instead), `smolagents` (smolagents' CodeAgent, its own native executor,
tests/bench/smolagents_peer.py), and `local` (the app as shipped with the same GGUF offered as
"On this device": the model runs in the page, no server; each task in a new browser profile, so
its time includes a cold load of the weights: fetch, sha256, store, load).

The task `three-tools` needs three host tools (an order, a price, a discount) and runs two ways
on a bench page (tests/browser/pages/agent-tools.js): `code-mode`, the SDK Agent given the tools
(the model calls them inside run_python), and `tool-per-call`, each tool offered to the model as
a tool of its own, one round trip per answer and no Python; model requests and seconds side by
side (tests/bench/agent_tools.py; its `--dry-run` runs the page with a scripted model).

    python -m tests.bench.agent [--tasks primes three-tools ...] [--rows on off smolagents local]

Every row but `local` runs by default (`--rows local` for the in-page model).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from playwright.sync_api import BrowserContext, Page, Playwright, Request, sync_playwright
from pydantic import SecretStr

from backend.settings import Settings
from tests.bench.agent_tools import (
    MODES,
    THREE_TOOLS,
    ToolOutcome,
    run_tool_task,
    save_transcript,
    tool_table,
)
from tests.browser.sandbox.conftest import app_with_page_headers
from tests.support.browser import launch_args
from tests.support.llama_server import llama_server, source
from tests.support.models import QWEN_CODER, ensure
from tests.support.servers import running

ALIAS = "qwen2.5-coder-1.5b"
ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "tests" / "bench" / "smolagents_peer.py"
PEER_VENV = Path.home() / ".cache" / "wasmbox" / "smolagents" / "venv-1.25.0"
MAX_STEPS = 8  # the SDK Agent's default, given to the peer too
ROWS = {
    "on": "wasmbox Agent: previews + hints + numbers check",
    "off": "wasmbox Agent, ?assist=off (none of the three)",
    "blocks-ask": "wasmbox Agent, ?codeblocks=ask (python blocks not run)",
    "smolagents": "smolagents 1.25.0 CodeAgent (native executor)",
    "local": "wasmbox app, On this device: the same GGUF in the page",
}
ROW_QUERY = {"off": "?assist=off", "blocks-ask": "?codeblocks=ask"}
RESULTS = Path(__file__).resolve().parents[2] / "bench-results"
WATCH_END = """() => {
  const log = document.querySelector('[role="log"]');
  window.__ended = false;
  new MutationObserver((records, observer) => {
    if (records.some((r) => r.oldValue === "true") && log.getAttribute("aria-busy") === "false") {
      window.__ended = true; observer.disconnect();
    }
  }).observe(log, { attributes: true, attributeFilter: ["aria-busy"], attributeOldValue: true });
}"""

# The app's status line says this once per request the in-page model has answered.
WATCH_LOCAL = """() => {
  const status = document.getElementById("local-model-status");
  window.__localSteps = 0;
  let done = false;
  new MutationObserver(() => {
    const now = status.textContent.includes("tokens reused from the cache");
    if (now && !done) window.__localSteps += 1;
    done = now;
  }).observe(status, { childList: true, characterData: true, subtree: true });
}"""
# The app's picker value for the site's shipped model (web/src/ui/local-model-picker.ts).
ON_DEVICE = "on-device"

CUSTOMERS = "customer,revenue\n" + "".join(
    f"C{(n * 7) % 12:02d},{(n * 37) % 500 + 10}\n" for n in range(60)
)
PRICES = "item,unit_price\nbolt,2.5\nnut,4.0\nscrew,1.25\n"


def top_customers() -> list[str]:
    totals: Counter[str] = Counter()
    for line in CUSTOMERS.splitlines()[1:]:
        name, revenue = line.split(",")
        totals[name] += int(revenue)
    return [name for name, _ in totals.most_common(5)]


@dataclass
class Task:
    name: str
    messages: list[str]
    solved: Callable[[str, int], bool]  # (final answer text, figures shown)
    upload: tuple[str, str] | None = None  # (file name, content)


def has_all(*needles: str) -> Callable[[str, int], bool]:
    return lambda text, _figures: all(n in text.replace(",", "") for n in needles)


NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def has_values(*expected: str) -> Callable[[str, int], bool]:
    """Each expected decimal appears as a number given to at least its precision that rounds to
    it: "-20.967742" or "-20.97" answer "-20.97", "-21.0" does not."""

    def rounds_to(number: str, value: str) -> bool:
        places = len(value.partition(".")[2])
        given = len(number.partition(".")[2])
        return given >= places and round(float(number), places) == float(value)

    def solved(text: str, _figures: int) -> bool:
        numbers = NUMBER.findall(text.replace(",", "").replace("\u2212", "-"))
        return all(any(rounds_to(n, value) for n in numbers) for value in expected)

    return solved


# The mean of those samples with np.random.seed(1) (0.0534…) or default_rng(1) (-0.0357…): a
# mean made up without a run does not pass.
SAMPLE_MEANS = ("0.053", "-0.035", "-0.036")


def plotted_then_counted(text: str, figures: int) -> bool:
    return figures > 0 and "500" in text and any(mean in text for mean in SAMPLE_MEANS)


TASKS = [
    Task("primes", ["What is the sum of all prime numbers below 100?"], has_all("1060")),
    Task(
        "fibonacci",
        ["Calculate the first 20 Fibonacci numbers and find which ones are prime"],
        has_all("13", "89", "233", "1597"),
    ),
    Task(
        "sales-growth",
        [
            "Daily sales: 2026-01-01 12400, 2026-01-02 9800, 2026-01-03 15200, 2026-01-04 11100, "
            "2026-01-05 18900. What is the day-over-day growth in percent?"
        ],
        has_values("-20.97", "55.1", "-26.97", "70.27"),
    ),
    Task(
        "top-customers",
        ["Who are the top 5 customers by total revenue in customers.csv?"],
        has_all(*top_customers()),
        upload=("customers.csv", CUSTOMERS),
    ),
    Task(
        "self-repair",
        ["What is the total of the price column in prices.csv?"],
        has_values("7.75"),
        upload=("prices.csv", PRICES),
    ),
    Task(
        "plot-follow-up",
        [
            "Plot a histogram of 500 samples from a normal distribution (numpy seed 1).",
            "Now tell me the count and the mean of those same numbers.",
        ],
        plotted_then_counted,
    ),
]


@dataclass
class Outcome:
    task: str
    solved: bool = False
    hung: bool = False
    steps: int = 0
    seconds: float = 0.0
    forms: list[str] = field(default_factory=list)
    invalid_calls: int = 0
    shown_failures: list[str] = field(default_factory=list)
    answer: str = ""
    transcript: str = ""


def run_task(page: Page, url: str, task: Task, timeout_ms: float, row: str) -> Outcome:
    outcome = Outcome(task.name)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if r.url.endswith("/completions") else None)
    replies = RESULTS / "agent-replies"
    replies.mkdir(parents=True, exist_ok=True)

    def keep_reply(request: Request) -> None:  # the model's raw replies, for parser fixtures
        response = request.response()
        if request.url.endswith("/completions") and response:
            try:
                body = response.text()
            except Exception:  # a body the browser did not keep is only not saved
                return
            (replies / f"{row}-{task.name}-{len(requests):02d}.txt").write_text(body)

    page.on("requestfinished", keep_reply)
    page.goto(url + ROW_QUERY.get(row, ""))
    try:
        page.get_by_text("Sandbox: ready").wait_for(timeout=300_000)
    except Exception:  # a page that never got ready fails this task, not the whole run
        outcome.shown_failures = ["the sandbox was not ready within 300 s"]
        return outcome
    if row == "local":
        page.get_by_label("Model", exact=True).select_option(ON_DEVICE)
        page.evaluate(WATCH_LOCAL)
    if task.upload:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / task.upload[0]
            path.write_text(task.upload[1])
            page.get_by_label("Upload files").set_input_files(str(path))
            page.get_by_role("listitem").filter(has_text=task.upload[0]).wait_for()
    start = time.monotonic()
    for message in task.messages:
        page.evaluate(WATCH_END)
        page.get_by_label("Message").fill(message)
        page.get_by_label("Message").press("Enter")
        try:
            page.wait_for_function("() => window.__ended === true", timeout=timeout_ms)
        except Exception:  # a turn that never ends is the finding
            outcome.hung = True
            page.get_by_role("button", name="Stop").click()
            break
    outcome.seconds = time.monotonic() - start
    outcome.steps = page.evaluate("() => window.__localSteps") if row == "local" else len(requests)
    log = page.get_by_role("log")
    outcome.forms = log.locator("pre.code[data-form]").evaluate_all(
        "(els) => els.map((e) => e.dataset.form)"
    )
    outcome.shown_failures = log.get_by_role("alert").all_inner_texts()
    outcome.invalid_calls = sum("call could not be run" in f for f in outcome.shown_failures)
    last = page.get_by_role("article", name="Assistant").last
    outcome.answer = "\n".join(last.locator(".model-text").all_inner_texts()).strip()
    outcome.transcript = log.inner_text()
    # The transcript as the app exports it: material for tests/fixtures/transcripts/.
    try:
        with page.expect_download(timeout=30_000) as download:
            page.get_by_role("button", name="Transcript (JSON)").click()
        download.value.save_as(RESULTS / f"bench-agent-{row}-{task.name}.json")
    except Exception as error:  # a missing export is noted, not a failed task
        print(f"transcript of {row} {task.name} not saved: {error}", flush=True)
    figures = page.get_by_role("img", name="figure produced by the code").count()
    outcome.solved = not outcome.hung and task.solved(outcome.answer, figures)
    return outcome


def run_peer(base: str, task: Task, timeout_s: float) -> Outcome:
    """smolagents' CodeAgent on one task, in its own virtualenv (tests/bench/smolagents_peer.py)."""
    outcome = Outcome(task.name)
    spec = {
        "messages": task.messages,
        "upload": task.upload,
        "base": base,
        "model": ALIAS,
        "max_steps": MAX_STEPS,
    }
    started = time.monotonic()
    try:
        done = subprocess.run(
            [str(PEER_VENV / "bin" / "python"), str(PEER)],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        outcome.hung = True
        outcome.seconds = time.monotonic() - started
        return outcome
    outcome.seconds = time.monotonic() - started
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        outcome.shown_failures = [f"peer exited {done.returncode}: {done.stderr.strip()[-300:]}"]
        return outcome
    report = json.loads(lines[-1])
    outcome.steps = report["steps"]
    outcome.answer = report["answer"]
    outcome.shown_failures = [e.splitlines()[0][:160] for e in report["errors"] if e]
    outcome.transcript = done.stdout + done.stderr
    outcome.solved = task.solved(outcome.answer, report["plots"])
    return outcome


def table(outcomes: list[Outcome]) -> str:
    rows = [
        f"{'task':16} {'solved':7} {'steps':>5} {'time s':>7} {'invalid':>7}  "
        "parser paths / failures shown"
    ]
    for o in outcomes:
        forms = ", ".join(f"{f}×{n}" for f, n in Counter(o.forms).items()) or "no run"
        status = "HUNG" if o.hung else ("yes" if o.solved else "no")
        rows.append(
            f"{o.task:16} {status:7} {o.steps:>5} {o.seconds:>7.0f} {o.invalid_calls:>7}  {forms}"
        )
        rows.extend(f"{'':47}shown: {failure}" for failure in o.shown_failures)
    rows.append(summary(outcomes))
    return "\n".join(rows)


def summary(outcomes: list[Outcome]) -> str:
    solved = sum(o.solved for o in outcomes)
    hung = sum(o.hung for o in outcomes)
    invalid = sum(o.invalid_calls for o in outcomes)
    return f"pass rate {solved}/{len(outcomes)}, hung {hung}, invalid-call events {invalid}"


def main() -> int:
    parser = argparse.ArgumentParser()
    names = [t.name for t in TASKS] + [THREE_TOOLS.name]
    parser.add_argument("--tasks", nargs="*", default=names, choices=names)
    parser.add_argument("--timeout-min", type=float, default=15)
    parser.add_argument("--threads", type=int, default=2)
    # The model's own template by default: chatml-function-calling (0.3.36) drops `tool` messages
    # from the prompt, and its replies with tools are a call, empty or `functions.<name>:` only.
    parser.add_argument(
        "--chat-format", default=None, help="a llama.cpp chat format (default: the GGUF's)"
    )
    parser.add_argument("--nice", type=int, default=0, help="the model server's niceness")
    # `local` only when asked: the model in the page takes several times longer per task.
    default_rows = [row for row in ROWS if row != "local"]
    parser.add_argument("--rows", nargs="*", default=default_rows, choices=list(ROWS))
    args = parser.parse_args()
    by_name = {t.name: t for t in TASKS}
    tasks = [by_name[name] for name in args.tasks if name in by_name]  # in the order given
    tool_outcomes: list[ToolOutcome] = []
    if "smolagents" in args.rows:
        subprocess.run([str(ROOT / "scripts" / "ensure-smolagents.sh")], check=True)
    RESULTS.mkdir(exist_ok=True)
    print(
        f"model: {source(QWEN_CODER, args.chat_format)}, {args.threads} threads, nice {args.nice}",
        flush=True,
    )
    results: dict[str, list[Outcome]] = {row: [] for row in args.rows}
    log = RESULTS / "bench-agent-llama.log"
    with (
        llama_server(
            QWEN_CODER,
            alias=ALIAS,
            n_ctx=8192,
            threads=args.threads,
            log=log,
            chat_format=args.chat_format,
            nice=args.nice,
        ) as base,
        tempfile.TemporaryDirectory(prefix="bench-site-model-") as site,
        # The app's pages as shipped; the bench's own page (the tools task) isolated like them.
        running(served_app(base, Path(site) if "local" in args.rows else None)) as url,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(**launch_args())
        # Task by task, every row in turn: a load that changes during the run hits rows alike.
        for task in tasks:
            for row in args.rows:
                if row == "smolagents":
                    outcome = run_peer(base, task, args.timeout_min * 60)
                elif row == "local":
                    with fresh_profile(pw) as context:
                        outcome = run_task(
                            context.new_page(), url, task, args.timeout_min * 60_000, row
                        )
                else:
                    context = browser.new_context()
                    outcome = run_task(
                        context.new_page(), url, task, args.timeout_min * 60_000, row
                    )
                    context.close()
                results[row].append(outcome)
                name = f"bench-agent-{row}-{task.name}.txt"
                (RESULTS / name).write_text(outcome.transcript)
                print(f"{row:11} " + table([outcome]).splitlines()[1], flush=True)
        if THREE_TOOLS.name in args.tasks:
            for mode in MODES:
                found = run_tool_task(
                    browser, url, THREE_TOOLS, mode, ALIAS, MAX_STEPS, args.timeout_min * 60
                )
                tool_outcomes.append(found)
                print(tool_table(THREE_TOOLS, [found]).splitlines()[2], flush=True)
                print(f"  transcript: {save_transcript(found).relative_to(ROOT)}", flush=True)
        browser.close()
    for row, outcomes in results.items():
        print(f"\n== {ROWS[row]}")
        print(table(outcomes))
    if tool_outcomes:
        print("\n" + tool_table(THREE_TOOLS, tool_outcomes))
        for way in tool_outcomes:
            print(f"{way.mode} answer: {way.answer[-300:] or way.error}")
    print()
    for row, outcomes in results.items():
        print(f"{ROWS[row]:50} {summary(outcomes)}")
    for row, outcomes in results.items():
        for o in outcomes:
            if not o.solved:
                name = f"bench-results/bench-agent-{row}-{o.task}.txt"
                print(f"\n--- {row} {o.task} (not solved): {name}\nanswer: {o.answer[-600:]}")
    return 0


def served_app(base: str, model_folder: Path | None) -> FastAPI:
    """The app's pages as shipped, proxying to the model server at `base`; with a folder, the
    bench's GGUF is also offered as "On this device" (the `local` row)."""
    app = app_with_page_headers(True, settings(base))
    return app if model_folder is None else with_shipped_model(app, model_folder)


def with_shipped_model(app: FastAPI, folder: Path) -> FastAPI:
    """The app offering the bench's GGUF as "On this device", as `wasmbox export --model` ships
    it (models/local-model.json), without copying 1.1 GB: the folder links to the verified file."""
    path = ensure(QWEN_CODER)  # sha256-checked here, and again by the page against the JSON's
    (folder / path.name).symlink_to(path)
    description = {
        "url": f"models/{path.name}",
        "name": QWEN_CODER.name,
        "sha256": QWEN_CODER.sha256,
        "bytes": QWEN_CODER.size,
    }
    (folder / "local-model.json").write_text(json.dumps(description))
    app.mount("/models", StaticFiles(directory=folder, follow_symlink=True), name="bench-models")
    return app


@contextmanager
def fresh_profile(pw: Playwright) -> Iterator[BrowserContext]:
    """A new browser profile on disk: an empty model store. Not an incognito context, where
    Chromium keeps blobs in memory and a 1.1 GB model cannot be read back from the store."""
    with tempfile.TemporaryDirectory(prefix="bench-agent-local-") as profile:
        context = pw.chromium.launch_persistent_context(profile, **launch_args())
        try:
            yield context
        finally:
            context.close()


def settings(base: str) -> Settings:
    return Settings(
        openai_base_url=base,
        openai_api_key=SecretStr("sk-local-not-a-secret"),
        models=[ALIAS],
        max_tokens=1024,
        # llama.cpp's server samples at 0.8 by default; a 1.5B model then wanders off its format.
        default_temperature=0.0,
        # A stalled model shows in the page as the proxy's timeout error, before a task's ends;
        # a 2k-token prompt on a loaded 2-core machine takes minutes before the first token.
        upstream_read_timeout_s=600,
        rate_limit="10000/minute",
    )


if __name__ == "__main__":
    sys.exit(main())
