"""Runs one task's reference solution against its unit tests and prints one JSON line.

The same source runs in both interpreters of `make bench-coverage` (tests/bench/coverage.py): sent
as code to a sandbox, where Pyodide runs it, with the call appended,

    report(run_task(solution, tests, hidden))

and as the venv's CPython process (`python coverage_runner.py --serve`), which reads a task a
line as JSON from stdin: one interpreter for all the tasks of a row on both sides. The standard
library only, so it runs before any package is known to exist.

`hidden` names top-level modules to treat as absent (the "before" rows: the packages the default
set gained, disabled in the same runtime): importing one raises ModuleNotFoundError as a missing
package would.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
import types
import unittest
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from typing import Any

MARKER = "@@coverage@@"
MISSING = re.compile(r"ModuleNotFoundError: No module named '([^']+)'")


class Hidden(MetaPathFinder):
    """Makes the named top-level modules (and their submodules) impossible to import."""

    def __init__(self, names: list[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec:
        if fullname.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named '{fullname}'", name=fullname)
        return None  # type: ignore[return-value]  # "not mine": the next finder looks


def hide(names: list[str]) -> None:
    if names and not any(isinstance(finder, Hidden) for finder in sys.meta_path):
        sys.meta_path.insert(0, Hidden(names))


def run_task(solution: str, tests: str, hidden: list[str]) -> dict[str, Any]:
    """Exec the solution and its tests in a fresh module, in a fresh folder; run the tests."""
    hide(hidden)
    module = types.ModuleType("task")
    here = os.getcwd()
    output = io.StringIO()
    report: dict[str, Any] = {"tests": 0, "failed": 0, "missing": [], "error": None}
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                exec(compile(solution + "\n\n" + tests, "task.py", "exec"), module.__dict__)
                suite = unittest.defaultTestLoader.loadTestsFromTestCase(module.TestCases)
                result = unittest.TextTestRunner(stream=output, verbosity=0).run(suite)
            report["tests"] = result.testsRun
            problems = [text for _, text in [*result.failures, *result.errors]]
            report["failed"] = len(problems) + len(result.unexpectedSuccesses)
            report["missing"] = sorted({m for text in problems for m in MISSING.findall(text)})
            if problems:
                report["error"] = problems[0].strip().splitlines()[-1][:200]
        except ModuleNotFoundError as exc:
            report["missing"] = [exc.name or str(exc)]
            report["error"] = f"ModuleNotFoundError: {exc}"[:200]
        except (Exception, SystemExit) as exc:  # whatever the task raises is its result
            report["error"] = f"{type(exc).__name__}: {exc}"[:200]
        finally:
            os.chdir(here)
            _close_figures()
    report["passed"] = report["error"] is None and report["tests"] > 0
    return report


def _close_figures() -> None:
    """Tasks draw; figures left open would pile up across tasks in one interpreter."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


def report(result: dict[str, Any]) -> None:
    print(MARKER + json.dumps(result), flush=True)


def serve() -> None:
    for line in sys.stdin:
        task = json.loads(line)
        report(run_task(task["solution"], task["tests"], task["hidden"]))


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:  # not when sent as a cell
    serve()
