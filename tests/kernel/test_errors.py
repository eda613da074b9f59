"""Errors: outcomes, clear messages, tracebacks of the user's cells only; the kernel survives."""

from __future__ import annotations

import gc
import sys

import pytest


@pytest.mark.parametrize(
    ("code", "outcome", "name"),
    [
        pytest.param("1 / 0", "OUTCOME_FAILED", "ZeroDivisionError", id="exception"),
        pytest.param("raise MemoryError", "OUTCOME_MEMORY_EXCEEDED", "MemoryError", id="memory"),
        pytest.param(
            # What wasm32 CPython raises for bytearray(3_000_000_000): a size past 2**31.
            "raise OverflowError(\"cannot fit 'int' into an index-sized integer\")",
            "OUTCOME_MEMORY_EXCEEDED",
            "OverflowError",
            id="wasm32-size-limit",
        ),
        pytest.param(
            "import math\nmath.exp(1000)", "OUTCOME_FAILED", "OverflowError", id="overflow"
        ),
        pytest.param("raise KeyboardInterrupt", "OUTCOME_CANCELLED", "KeyboardInterrupt", id="kbi"),
        pytest.param("import sys\nsys.exit(3)", "OUTCOME_FAILED", "SystemExit", id="sys-exit"),
        pytest.param("exit()", "OUTCOME_FAILED", "SystemExit", id="exit-builtin"),
        pytest.param("def f(): f()\nf()", "OUTCOME_FAILED", "RecursionError", id="recursion"),
        pytest.param("x = (", "OUTCOME_FAILED", "SyntaxError", id="syntax"),
    ],
)
def test_outcome_and_the_kernel_stays_usable(run, kernel, code, outcome, name):
    result = run(kernel, code)
    assert (result["outcome"], result["error"]["name"]) == (outcome, name)
    assert run(kernel, "print('alive')")["stdout"] == "alive\n"


def test_traceback_names_the_cell_and_shows_the_line(run, kernel):
    run(kernel, "x = 1")
    traceback = run(kernel, "def boom():\n    raise ValueError('bad')\nboom()")["error"][
        "traceback"
    ]
    assert 'File "<cell-2>", line 3, in <module>' in traceback
    assert "    raise ValueError('bad')" in traceback
    assert traceback.endswith("ValueError: bad\n")


def test_traceback_has_no_kernel_frames(run, kernel):
    traceback = run(kernel, "import json\njson.loads('{')")["error"]["traceback"]
    assert "wasmbox_kernel" not in traceback
    assert "json/decoder.py" in traceback  # library frames stay: they explain the error


def test_traceback_reaches_functions_of_earlier_cells(run, kernel):
    run(kernel, "def fail():\n    return 1 / 0")
    traceback = run(kernel, "fail()")["error"]["traceback"]
    assert 'File "<cell-1>", line 2, in fail' in traceback


def test_custom_cell_prefix(run, make_kernel):
    traceback = run(make_kernel(cell_prefix="In"), "1/0")["error"]["traceback"]
    assert 'File "<In-1>"' in traceback


def test_syntax_error_names_the_line(run, kernel):
    error = run(kernel, "a = 1\nb = (\n")["error"]
    assert "line 2" in error["message"]
    assert error["traceback"].startswith('  File "<cell-1>", line 2\n    b = (\n')


def test_recursion_error_names_the_limit(run, make_kernel):
    error = run(make_kernel(recursion_limit=100), "def f(): f()\nf()")["error"]
    assert "the sandbox allows 100 nested calls" in error["message"]
    assert error["traceback"].endswith(error["message"] + "\n")


def test_recursion_limit_applies_only_within_runs(run, make_kernel):
    before = sys.getrecursionlimit()
    code = (
        "def depth(n):\n"
        "    try:\n"
        "        return depth(n + 1)\n"
        "    except RecursionError:\n"
        "        return n\n"
        "depth(0)"
    )
    value = run(make_kernel(recursion_limit=100), code)["value"]
    assert 90 <= int(value["text/plain"]) <= 100
    assert sys.getrecursionlimit() == before


def test_system_exit_says_the_sandbox_keeps_running(run, kernel):
    message = run(kernel, "import sys\nsys.exit(3)")["error"]["message"]
    assert message.startswith("exit code 3:")
    assert "the sandbox keeps running" in message


def test_missing_module_lists_what_is_available(run, kernel):
    error = run(kernel, "import sklearnx")["error"]
    assert error["name"] == "ModuleNotFoundError"
    assert error["message"] == (
        "No module named 'sklearnx': the package is not available in this sandbox (no network, "
        "no pip install); available packages: matplotlib, numpy, pandas, plus the Python "
        "standard library"
    )


def test_missing_module_without_packages(run, make_kernel):
    message = run(make_kernel(available_packages={}), "import nope")["error"]["message"]
    assert message.endswith("only the Python standard library is available")


def test_missing_submodule_of_an_available_package_is_left_alone(run, kernel):
    message = run(kernel, "import json.nothing_here")["error"]["message"]
    assert message == "No module named 'json.nothing_here'"


def test_value_is_none_when_the_cell_fails(run, kernel):
    assert run(kernel, "x = 1\n1 / 0\nx")["value"] is None


def test_wasm32_size_limit_names_the_memory_limit(run, kernel):
    code = "raise OverflowError(\"cannot fit 'int' into an index-sized integer\")"
    message = run(kernel, code)["error"]["message"]
    assert "32-bit WebAssembly" in message and "index-sized integer" in message


def test_a_deep_traceback_keeps_its_innermost_frames_and_counts_the_rest(run, kernel):
    code = "import sys\nsys.setrecursionlimit(5000)\ndef f(n):\n    return f(n + 1)\nf(0)"
    error = run(kernel, code)["error"]
    assert error["name"] == "RecursionError"
    lines = error["traceback"].splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    omitted = int(lines[1].strip().removeprefix("[").split()[0])
    assert omitted > 4000 and lines[1].endswith("outer frames omitted]")
    assert error["traceback"].count('File "<cell-1>"') <= 200


def test_an_available_package_that_could_not_be_loaded_says_why(run, make_kernel):
    """The worker could not load the package (e.g. its file failed the manifest's hash): the
    failed import gives that reason, not a bare "No module named"."""
    kernel = make_kernel(available_packages={"joblibx": "1.4.0"})
    reason = "joblibx-1.4.0-py3-none-any.whl is not the runtime's file"
    message = run(kernel, "import joblibx", load_failures=[reason])["error"]["message"]
    assert message == f"No module named 'joblibx': the package could not be loaded ({reason})"
    assert run(kernel, "import joblibx")["error"]["message"] == "No module named 'joblibx'"


def test_a_failed_cell_frees_what_its_frames_held_without_the_cycle_collector(run, kernel):
    """The memory a failed run allocated is free for the next run at once: in the worker a run
    refused memory by the budget must not keep it (sandbox/memory-budget.ts)."""
    code = (
        "import weakref\n"
        "class Held: pass\n"
        "def fail():\n"
        "    held = Held()\n"
        "    global ref\n"
        "    ref = weakref.ref(held)\n"
        "    raise MemoryError\n"
        "fail()"
    )
    gc.disable()
    try:
        assert run(kernel, code)["outcome"] == "OUTCOME_MEMORY_EXCEEDED"
        assert run(kernel, "ref() is None")["value"]["text/plain"] == "True"
    finally:
        gc.enable()
