"""IPython-like cells: value of the last expression, top-level await, persistent globals."""

from __future__ import annotations

import json
import linecache
import os

import pytest
from wasmbox_kernel import Kernel


@pytest.mark.parametrize(
    ("code", "plain"),
    [
        pytest.param("1 + 1", "2", id="expression"),
        pytest.param("x = 5\nx * 2", "10", id="after-statements"),
        pytest.param("(1 +\n 2)", "3", id="multi-line"),
        pytest.param("import asyncio\nawait asyncio.sleep(0)\n'slept'", "'slept'", id="await"),
        pytest.param("async def f():\n    return 7\nawait f()", "7", id="await-value"),
        pytest.param("x = 1; x  # a comment", "1", id="comment-after"),
    ],
)
def test_last_expression_is_the_value(run, kernel, code, plain):
    result = run(kernel, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"] is not None
    assert result["value"]["text/plain"] == plain


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("1 + 1;", id="semicolon"),
        pytest.param("1 + 1;  # quiet", id="semicolon-then-comment"),
        pytest.param("(1 +\n 1);", id="semicolon-after-parenthesis"),
        pytest.param("None", id="none"),
        pytest.param("x = 3", id="assignment"),
        pytest.param("print('hi')", id="print-returns-none"),
        pytest.param("for i in range(2):\n    i", id="compound-statement"),
        pytest.param("", id="empty"),
    ],
)
def test_no_value(run, kernel, code):
    result = run(kernel, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"] is None


def test_globals_persist_across_runs(run, kernel):
    run(kernel, "counter = 41\ndef bump():\n    return counter + 1")
    assert run(kernel, "bump()")["value"] == {"application/json": "42", "text/plain": "42"}


def test_cells_run_as_main(run, kernel):
    assert run(kernel, "__name__")["value"]["text/plain"] == "'__main__'"


def test_user_classes_pickle(run, kernel):
    code = "import pickle\nclass P:\n    pass\ntype(pickle.loads(pickle.dumps(P()))).__name__"
    assert run(kernel, code)["value"]["text/plain"] == "'P'"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param("{'a': [1, 2.5, None, True]}", {"a": [1, 2.5, None, True]}, id="dict"),
        pytest.param("[1, 'two']", [1, "two"], id="list"),
        pytest.param("'text'", "text", id="str"),
        pytest.param("3", 3, id="int"),
    ],
)
def test_json_values_carry_application_json(run, kernel, code, expected):
    value = run(kernel, code)["value"]
    assert json.loads(value["application/json"]) == expected


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("{1, 2}", id="set"),
        pytest.param("float('nan')", id="nan"),
        pytest.param("object()", id="object"),
    ],
)
def test_non_json_values_have_no_application_json(run, kernel, code):
    assert "application/json" not in run(kernel, code)["value"]


def test_dataframe_value_has_html(run, kernel):
    pytest.importorskip("pandas")
    value = run(kernel, "import pandas as pd\npd.DataFrame({'a': [1, 2]})")["value"]
    assert "<table" in value["text/html"]
    assert "a" in value["text/plain"]


def test_repr_methods_give_their_mime_types(run, kernel):
    code = (
        "class Rich:\n"
        "    def _repr_png_(self): return b'\\x89PNG'\n"
        "    def _repr_svg_(self): return '<svg/>'\n"
        "    def _repr_markdown_(self): return '**b**'\n"
        "    def _repr_json_(self): return {'k': 1}\n"
        "    def __repr__(self): return 'Rich()'\n"
        "Rich()"
    )
    assert run(kernel, code)["value"] == {
        "image/png": "iVBORw==",
        "image/svg+xml": "<svg/>",
        "text/markdown": "**b**",
        "application/json": '{"k": 1}',
        "text/plain": "Rich()",
    }


def test_a_failing_repr_method_is_skipped(run, kernel):
    code = (
        "class Bad:\n"
        "    def _repr_html_(self): raise ValueError\n"
        "    def __repr__(self): return 'B'\n"
        "Bad()"
    )
    assert run(kernel, code)["value"] == {"text/plain": "B"}


def test_result_is_json_safe_with_exactly_the_contract_keys(run, kernel):
    result = run(kernel, "print('x')\n{'a': 1}")
    assert json.loads(json.dumps(result)) == result
    assert set(result) == {
        "outcome", "stdout", "stderr", "truncated", "value", "displays", "files", "error",
        "audit", "policy",
    }  # fmt: skip


def test_on_cell_brackets_only_the_cells_own_code(run, kernel):
    """The worker arms its interrupt between on_cell(True) and on_cell(False): the cell runs
    inside that window, the kernel's set-up and result building outside it."""
    calls: list[bool] = []
    kernel.namespace["calls"] = calls
    result = run(kernel, "seen = list(calls)\n1 / 0", on_cell=calls.append)
    assert calls == [True, False]
    assert kernel.namespace["seen"] == [True]
    assert result["outcome"] == "OUTCOME_FAILED"


def test_on_cell_is_not_called_for_a_cell_that_never_runs(run, kernel):
    calls: list[bool] = []
    assert run(kernel, "1 +", on_cell=calls.append)["outcome"] == "OUTCOME_FAILED"
    assert calls == []


def test_close_forgets_the_cells_lines_and_globals(run, make_kernel):
    rehearsal, session = make_kernel(cell_prefix="rehearsal"), make_kernel()
    run(rehearsal, "x = 1")
    run(session, "y = 2")
    rehearsal.close()
    assert "<rehearsal-1>" not in linecache.cache
    assert "x" not in rehearsal.namespace
    assert "<cell-1>" in linecache.cache  # another kernel's cells are left alone
    assert "line 1" in run(session, "1/0")["error"]["traceback"]


def test_result_json_is_the_result(run, kernel):
    """The worker parses the result from this text (sandbox/execute.ts)."""
    result = run(kernel, "print('é \\udcff ✓'); {'a': [1, 2.5, None]}")
    assert json.loads(Kernel.result_json(result)) == result


def test_a_cell_run_again_is_its_own_cell(run, kernel):
    """A repeated source is not compiled again (cells.CompiledCells), yet its code, and the
    functions it defines, name the new run's cell in tracebacks."""
    code = "def f():\n    return 1 / 0\nf()"
    first = run(kernel, code)["error"]["traceback"]
    again = run(kernel, code)["error"]["traceback"]
    assert "<cell-1>" in first and "<cell-1>" not in again
    assert again.count("<cell-2>") == 2 and "return 1 / 0" in again


def test_a_cell_run_again_runs_again(run, kernel):
    code = "n = globals().get('n', 0) + 1\nn"
    assert [run(kernel, code)["value"]["text/plain"] for _ in range(3)] == ["1", "2", "3"]


def test_each_run_starts_in_the_working_directory_and_leaves_the_process_where_it_was(
    run, kernel, tmp_path
):
    before = os.getcwd()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = run(kernel, f"import os\nos.chdir({str(elsewhere)!r})\nos.getcwd()")
    assert json.loads(moved["value"]["application/json"]) == str(elsewhere)
    assert os.getcwd() == before
    again = run(kernel, "import os\nos.getcwd()")
    assert json.loads(again["value"]["application/json"]) == kernel._options.cwd
    os.chdir(kernel._options.cwd)  # as the worker keeps it between runs
    try:
        run(kernel, f"import os\nos.chdir({str(elsewhere)!r})")
        assert os.getcwd() == kernel._options.cwd
    finally:
        os.chdir(before)
