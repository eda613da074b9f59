"""The module policy: refused before running (AST) and caught while running (import hook)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("code", "rule", "line"),
    [
        pytest.param("x = 1\n\nimport ctypes", "module:ctypes", 3, id="import"),
        pytest.param("from ctypes import util", "module:ctypes", 1, id="from-import"),
        pytest.param("import ctypes.util", "module:ctypes", 1, id="submodule"),
        pytest.param("import js as j", "module:js", 1, id="alias"),
        pytest.param("from pyodide import http", "module:pyodide.http", 1, id="from-package"),
        pytest.param("from pyodide.ffi import to_js", "module:pyodide.ffi", 1, id="ffi"),
        pytest.param("import pyodide\npyodide.ffi.to_js", "module:pyodide.ffi", 2, id="attribute"),
        pytest.param("__import__('_ctypes')", "module:_ctypes", 1, id="literal-dunder-import"),
        pytest.param(
            "import importlib\nimportlib.import_module('js')", "module:js", 2, id="lit-il"
        ),
        pytest.param("import sys\nsys.modules['pyodide_js']", "module:pyodide_js", 2, id="sys-mod"),
        pytest.param("def f():\n    import micropip", "module:micropip", 2, id="in-function"),
    ],
)
def test_blocked_before_running(run, kernel, code, rule, line):
    result = run(kernel, "print('ran')\n" + code)
    assert result["outcome"] == "OUTCOME_POLICY_VIOLATION"
    assert result["policy"]["rule"] == rule
    assert result["policy"]["line"] == line + 1
    assert result["error"]["name"] == "PolicyViolation"
    assert result["stdout"] == ""  # nothing ran


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        pytest.param("name = 'ct' + 'ypes'\n__import__(name)", "module:ctypes", id="dunder-import"),
        pytest.param(
            "import importlib\nimportlib.import_module('j' + 's')", "module:js", id="importlib"
        ),
        pytest.param("exec('import ' + 'js')", "module:js", id="exec"),
        pytest.param("eval(\"__import__('pyodide' + '_js')\")", "module:pyodide_js", id="eval"),
        pytest.param("exec('import js', {})", "module:js", id="exec-fresh-globals"),
        pytest.param(
            "import importlib\nimportlib.__import__('ct' + 'ypes')", "module:ctypes", id="il-di"
        ),
    ],
)
def test_blocked_while_running(run, kernel, code, rule):
    result = run(kernel, code)
    assert result["outcome"] == "OUTCOME_POLICY_VIOLATION"
    assert (result["policy"]["rule"], result["policy"]["line"]) == (rule, code.count("\n") + 1)
    assert "PolicyViolation: " in result["error"]["traceback"]


def test_a_caught_violation_still_counts(run, kernel):
    code = "try:\n    __import__('ct' + 'ypes')\nexcept ImportError:\n    print('caught')"
    result = run(kernel, code)
    assert (result["outcome"], result["stdout"]) == ("OUTCOME_POLICY_VIOLATION", "caught\n")


def test_imports_by_imported_modules_are_not_checked(run, kernel, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))  # Pyodide has "" (the cwd) on sys.path
    (tmp_path / "helper_with_ctypes.py").write_text("import ctypes\nOK = True\n")
    assert (
        run(kernel, "import helper_with_ctypes\nhelper_with_ctypes.OK")["outcome"] == "OUTCOME_OK"
    )


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("from pyodide.ffi import run_sync", id="run-sync"),
        pytest.param("import pyodide\npyodide.ffi.run_sync", id="run-sync-attribute"),
        pytest.param("import json, os.path\njson.dumps(os.path.sep)", id="ordinary-modules"),
    ],
)
def test_allowed_by_default(run, kernel, code):
    assert run(kernel, code)["policy"] is None


def test_the_kernel_works_after_a_violation(run, kernel):
    run(kernel, "exec('import js')")
    assert run(kernel, "import json\njson.dumps([1])")["outcome"] == "OUTCOME_OK"


def test_off_disables_every_check(run, make_kernel):
    kernel = make_kernel(policy="off")
    assert run(kernel, "import ctypes\nexec('import ctypes')")["outcome"] == "OUTCOME_OK"


def test_allow_modules_overrides_the_default_deny(run, make_kernel):
    kernel = make_kernel(policy={"allowModules": ["ctypes"]})
    assert run(kernel, "import ctypes")["outcome"] == "OUTCOME_OK"


def test_deny_modules_adds_rules(run, make_kernel):
    result = run(make_kernel(policy={"denyModules": ["json"]}), "exec('import json')")
    assert result["policy"]["rule"] == "module:json"


def test_allow_install_unblocks_micropip(run, make_kernel):
    kernel = make_kernel(allow_install=True)
    assert run(kernel, "def f():\n    import micropip")["outcome"] == "OUTCOME_OK"


def test_oversized_code_is_refused_before_parsing(run, make_kernel):
    result = run(make_kernel(policy={"maxCodeBytes": 10}), "x = 'ééééé'")  # 16 bytes
    assert result["outcome"] == "OUTCOME_POLICY_VIOLATION"
    assert result["policy"] == {
        "rule": "maxCodeBytes",
        "line": None,
        "message": "the code is 16 bytes; the sandbox policy allows at most 10 bytes",
    }


def test_default_code_size_limit_is_one_megabyte(run, kernel):
    result = run(kernel, "#" * 1_000_001)
    assert result["policy"]["rule"] == "maxCodeBytes"


def test_a_refused_run_still_lists_the_files_it_wrote(run, kernel):
    result = run(kernel, "open('before.txt', 'w').write('x')\nexec('import ctypes')")
    assert result["outcome"] == "OUTCOME_POLICY_VIOLATION"
    assert [f["path"] for f in result["files"]] == ["before.txt"]


@pytest.mark.parametrize(
    "spec",
    [
        pytest.param("__import__('importlib').machinery.ModuleSpec('json', None)", id="forged"),
        pytest.param("__import__('json').__spec__", id="borrowed"),
        pytest.param("object()", id="nameless"),
    ],
)
def test_a_spec_in_an_exec_dict_does_not_pass_for_a_module(run, kernel, spec):
    result = run(kernel, f"exec('import ctypes', {{'__spec__': {spec}}})")
    assert result["outcome"] == "OUTCOME_POLICY_VIOLATION"


def test_a_refused_cell_is_refused_again_and_imports_after_plain_runs_are_checked(run, kernel):
    """Sources are kept compiled only once they passed (cells.CompiledCells): a refusal is
    never skipped, nor the check of an import at run time after runs that imported nothing."""
    for _ in range(2):
        assert run(kernel, "import ctypes")["outcome"] == "OUTCOME_POLICY_VIOLATION"
        assert run(kernel, "1 + 1")["outcome"] == "OUTCOME_OK"
    dynamic = "__import__('c' + 'types')"
    for _ in range(2):
        assert run(kernel, dynamic)["policy"]["rule"] == "module:ctypes"
