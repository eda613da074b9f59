"""Session state beyond the variables: the interpreter's settings (random generators, library
options, warnings filters, environment variables, sys.path) and module attributes come back in a
new kernel, and what cannot is named.

Both kernels of a test share this process, so `new_interpreter()` first puts every process-wide
setting back as it was when the test began: what the second kernel then has, it restored."""

from __future__ import annotations

import ast
import decimal
import io
import os
import pickle
import random
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from wasmbox_kernel import Kernel, KernelOptions
from wasmbox_kernel.module_attributes import assigned_paths


def parts(data: bytes) -> tuple[Any, Any]:
    """A save's header and body: two pickles one after the other."""
    stream = io.BytesIO(data)
    return pickle.load(stream), pickle.load(stream)


def fresh(tmp_path) -> Kernel:
    return Kernel(KernelOptions(cwd=str(tmp_path)))


def ok(run, kernel: Kernel, code: str) -> str:
    result = run(kernel, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    return str(result["value"]["text/plain"]) if result["value"] else ""


@pytest.fixture
def new_interpreter(tmp_path) -> Iterator[Callable[[], None]]:
    """Returns `reset()`: the process-wide settings as they were at the test's start, and the
    modules imported from `tmp_path` forgotten, as in a new worker. Called again at the end.
    Pyodide has "" (the working directory) on sys.path: so has the test. The libraries are
    imported once a kernel has set the process up (its matplotlib backend), as in the sandbox."""
    fresh(tmp_path)
    import matplotlib
    import numpy as np
    import pandas as pd

    sys.path.insert(0, "")
    rng, np_rng = random.getstate(), np.random.get_state()
    printing, errors = np.get_printoptions(), np.geterr()
    filters, environ, path = list(warnings.filters), dict(os.environ), list(sys.path)
    context = decimal.getcontext().copy()

    def reset() -> None:
        random.setstate(rng)
        np.random.set_state(np_rng)
        np.set_printoptions(**printing)
        np.seterr(**errors)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pd.reset_option("all")
            matplotlib.rc_file_defaults()  # rcParamsOrig, the backend kept
        warnings.resetwarnings()
        warnings.filters[:] = filters  # type: ignore[index]
        os.environ.clear()
        os.environ.update(environ)
        sys.path[:] = path
        decimal.setcontext(context.copy())
        root = str(tmp_path)
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", "") or "").startswith(root):
                del sys.modules[name]
        import math

        vars(math).pop("answer", None)

    yield reset
    reset()
    sys.path.remove("")


IMPORTS = (
    "import decimal, os, random, sys, warnings\nimport matplotlib, numpy as np, pandas as pd\n"
)
SETTINGS = (
    IMPORTS + "random.seed(5)\n"
    "np.random.seed(5)\n"
    "np.set_printoptions(precision=2)\n"
    "np.seterr(divide='raise')\n"
    "pd.set_option('display.max_rows', 7)\n"
    "matplotlib.rcParams['lines.linewidth'] = 4.5\n"
    "warnings.filterwarnings('ignore', message='noisy', category=UserWarning)\n"
    "os.environ['WASMBOX_TEST_MODE'] = 'on'\n"
    "sys.path.append('lib')\n"
    "decimal.setcontext(decimal.Context(prec=9))\n"
)
READ_SETTINGS = (
    "(random.random(), float(np.random.random()), np.get_printoptions()['precision'],\n"
    " np.geterr()['divide'], pd.get_option('display.max_rows'),\n"
    " matplotlib.rcParams['lines.linewidth'],\n"
    " [f[0] for f in warnings.filters if f[1] is not None and f[1].pattern == 'noisy'],\n"
    " os.environ.get('WASMBOX_TEST_MODE'), 'lib' in sys.path, decimal.getcontext().prec)"
)


def test_settings_changed_by_calls_come_back(run, tmp_path, new_interpreter):
    kernel = fresh(tmp_path)
    ok(run, kernel, SETTINGS)
    saved = kernel.save_state()
    assert saved["skipped"] == []
    expected = ok(run, kernel, READ_SETTINGS)  # draws the numbers a restored session must draw
    assert "'on'" in expected and "4.5" in expected and "['ignore']" in expected

    new_interpreter()
    assert ok(run, fresh(tmp_path), IMPORTS + READ_SETTINGS) != expected
    other = fresh(tmp_path)
    assert other.load_state(saved["data"])["failed"] == []
    assert ok(run, other, READ_SETTINGS) == expected


HELPERS = (
    "LIMIT = 1\nunused = 0\ncache = {}\n\ndef bump():\n    cache['n'] = cache.get('n', 0) + 1\n"
)
MODULE_STATE = (
    "import helpers, math\n"
    "helpers.bump(); helpers.bump()\n"
    "helpers.LIMIT += 10\n"
    "del helpers.unused\n"
    "math.answer = 42\n"
    "same = helpers.cache\n"
)
READ_MODULES = (
    "helpers.bump()\n"
    "helpers.cache, helpers.LIMIT, hasattr(helpers, 'unused'), math.answer, same is helpers.cache"
)


def test_module_attributes_and_the_sessions_own_modules_come_back(run, tmp_path, new_interpreter):
    (tmp_path / "helpers.py").write_text(HELPERS)
    kernel = fresh(tmp_path)
    ok(run, kernel, MODULE_STATE)
    saved = kernel.save_state()
    assert saved["skipped"] == []

    new_interpreter()
    other = fresh(tmp_path)
    report = other.load_state(saved["data"])
    assert report["failed"] == []
    assert {"helpers", "math", "same"} <= set(report["restored"])
    expected = "({'n': 3}, 11, False, 42, True)"
    assert ok(run, other, READ_MODULES) == expected

    # A second generation keeps them too: the restored attributes are saved again.
    again = other.save_state()
    new_interpreter()
    third = fresh(tmp_path)
    assert third.load_state(again["data"])["failed"] == []
    assert ok(run, third, "math.answer, helpers.cache") == "(42, {'n': 3})"


def test_what_cannot_be_saved_beyond_the_variables_is_named(run, tmp_path, new_interpreter):
    (tmp_path / "helpers.py").write_text(HELPERS)
    kernel = fresh(tmp_path)
    ok(
        run,
        kernel,
        "import helpers, pandas as pd\n"
        "helpers.gen = (i for i in range(3))\n"
        "helpers.log = open('log.txt', 'w')\n"
        "pd.set_option('display.float_format', (i for i in range(3)).send)\n"
        "kept = 1",
    )
    saved = kernel.save_state()
    reasons = {s["name"]: s["reason"] for s in saved["skipped"]}
    assert set(reasons) == {"helpers.gen", "helpers.log", "pandas options"}
    assert "generator" in reasons["helpers.gen"] and "open file" in reasons["helpers.log"]
    kernel.namespace["helpers"].log.close()  # type: ignore[attr-defined]

    new_interpreter()
    other = fresh(tmp_path)
    report = other.load_state(saved["data"])
    assert report["failed"] == [] and "kept" in report["restored"]
    assert ok(run, other, "kept, hasattr(helpers, 'gen'), helpers.LIMIT") == "(1, False, 1)"


def test_a_setting_that_cannot_be_restored_is_named_alone(run, tmp_path, new_interpreter):
    kernel = fresh(tmp_path)
    ok(run, kernel, "import numpy as np\nnp.seterr(over='raise')")
    saved = kernel.save_state()
    header, body = parts(saved["data"])
    body["settings"]["numpy error handling"] = pickle.dumps({"over": "not-a-mode"})
    body["settings"]["random state"] = b"not a pickle"
    tampered = pickle.dumps(header) + pickle.dumps(body)

    new_interpreter()
    report = fresh(tmp_path).load_state(tampered)
    reasons = {f["name"]: f["reason"] for f in report["failed"]}
    assert set(reasons) == {"numpy error handling", "random state"}
    assert "not-a-mode" in reasons["numpy error handling"]
    assert "np" in report["restored"]  # the rest came back


def test_a_save_of_the_first_format_still_loads(tmp_path):
    old = pickle.dumps({"format": 1, "values": {"x": 41}, "modules": {"m": "math"}})
    kernel = fresh(tmp_path)
    report = kernel.load_state(old)
    assert report["restored"] == ["m", "x"] and report["failed"] == []


def test_settings_as_a_new_kernel_has_them_are_not_saved(tmp_path, run):
    kernel = fresh(tmp_path)
    ok(run, kernel, "import matplotlib, pandas, warnings\nx = 1")
    header, body = parts(kernel.save_state()["data"])
    assert header == {"format": 2, "settings": {}}
    assert body["attributes"] == {} and body["deleted"] == []
    assert not {"pandas options", "matplotlib rcParams", "warnings filters"} & set(body["settings"])
    assert "random state" in body["settings"]


@pytest.mark.parametrize(
    ("code", "paths"),
    [
        pytest.param("a.b.c = 1", [(("a", "b"), "c")], id="assign"),
        pytest.param("m.x += 1", [(("m",), "x")], id="augmented"),
        pytest.param("del m.y", [(("m",), "y")], id="delete"),
        pytest.param("def f():\n    m.z: int = 2", [(("m",), "z")], id="in-a-function"),
        pytest.param("obj().x = 1\nm.read = m.x", [(("m",), "read")], id="calls-and-reads"),
    ],
)
def test_assigned_attribute_paths(code: str, paths: list[Any]):
    assert assigned_paths(ast.parse(code)) == paths


def test_attributes_of_what_is_not_a_module_nor_of_the_interpreter_are_not_kept(run, tmp_path):
    kernel = fresh(tmp_path)
    ok(run, kernel, "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\ndf.columns = ['b']")
    assert parts(kernel.save_state()["data"])[1]["attributes"] == {}
    ok(run, kernel, "import sys, os.path\nsys.custom = 2\nos.path.custom = 1")
    assert parts(kernel.save_state()["data"])[1]["attributes"] == {("posixpath", "custom"): 1}
    del os.path.custom, sys.custom  # type: ignore[attr-defined]
