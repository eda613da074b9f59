"""Session state: variables pickled into one record and restored into a fresh kernel."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from wasmbox_kernel import Kernel, KernelOptions


def fresh(tmp_path) -> Kernel:
    return Kernel(KernelOptions(cwd=str(tmp_path)))


def moved(run, kernel: Kernel, tmp_path, code: str) -> tuple[Kernel, dict[str, Any]]:
    """Run `code`, save, and restore into a new kernel; returns it and the save report."""
    result = run(kernel, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    saved = kernel.save_state()
    other = fresh(tmp_path)
    report = other.load_state(saved["data"])
    return other, {"saved": saved, "loaded": report}


def value(run, kernel: Kernel, code: str) -> str:
    result = run(kernel, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"] is not None
    return str(result["value"]["text/plain"])


def test_dataframe_array_and_aliasing_survive(run, tmp_path):
    code = (
        "import numpy as np, pandas as pd\n"
        "arr = np.arange(6).reshape(2, 3)\n"
        "df = pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\n"
        "same = df\n"
        "square = lambda v: v * v\n"
        "class Point:\n    def __init__(self, x): self.x = x\n"
        "p = Point(3)\n"
    )
    other, report = moved(run, fresh(tmp_path), tmp_path, code)
    assert report["saved"]["skipped"] == []
    assert report["loaded"]["failed"] == []
    assert {"arr", "df", "same", "square", "p", "np", "pd", "Point"} <= set(
        report["loaded"]["restored"]
    )
    assert value(run, other, "int(arr.sum()), int(df['a'].sum()), same is df") == "(15, 3, True)"
    assert value(run, other, "square(p.x), type(np).__name__") == "(9, 'module')"
    assert "numpy" in report["saved"]["modules"]


@pytest.mark.parametrize(
    ("code", "name", "reason"),
    [
        pytest.param("gen = (i for i in range(3))", "gen", "generator", id="generator"),
        pytest.param("fh = open('f.txt', 'w')", "fh", "open file", id="file-for-writing"),
        pytest.param(
            "open('r.txt', 'w').close()\nfh = open('r.txt')",
            "fh",
            "open file",
            id="file-for-reading",
        ),
    ],
)
def test_unpicklable_is_named_and_the_rest_kept(run, tmp_path, code, name, reason):
    other, report = moved(run, fresh(tmp_path), tmp_path, f"kept = [1, 2]\n{code}")
    skipped = report["saved"]["skipped"]
    assert [s["name"] for s in skipped] == [name]
    assert reason in skipped[0]["reason"]
    assert value(run, other, "kept") == "[1, 2]"
    assert run(other, name)["outcome"] == "OUTCOME_FAILED"


def test_kernel_injected_names_are_not_saved(run, tmp_path):
    kernel = fresh(tmp_path)
    run(kernel, "x = 1")
    saved = kernel.save_state()
    other = fresh(tmp_path)
    assert other.load_state(saved["data"])["restored"] == ["x"]


def test_garbage_is_reported_not_raised(tmp_path):
    report = fresh(tmp_path).load_state(b"not a pickle")
    assert report["restored"] == []
    assert report["failed"][0]["name"] == "*"


# A worker booted from a snapshot (or a spare that preloaded) has packages imported before the
# session's first run: a save names them only when its values need them, so that its resume can
# start from a snapshot without them. In this process matplotlib and numpy are imported before
# the kernel's first run, as the plot-ready snapshot has them.
@pytest.fixture
def preloaded(tmp_path) -> Iterator[Kernel]:
    import matplotlib.figure
    import numpy  # noqa: F401

    # As a new worker has them (an earlier test of this process may have changed some), and put
    # back after (a case changes them).
    with matplotlib.rc_context(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated keys warn
        matplotlib.rcParams.update(matplotlib.rcParamsOrig)
        yield fresh(tmp_path)


def saved_modules(run, kernel: Kernel, code: str) -> list[str]:
    result = run(kernel, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    return kernel.save_state()["modules"]


def test_modules_loaded_before_the_session_are_not_saved_unless_needed(run, preloaded):
    modules = saved_modules(run, preloaded, "x = [1, 2]\nimport json\ntext = json.dumps(x)")
    assert "matplotlib" not in modules
    assert "json" in modules  # imported by the session: still named


# Each case's module is unbound from the namespace where it can be, so only the rule under test
# can name it. (numpy is always named where it is loaded: its print options and random state are
# saved settings.)
@pytest.mark.parametrize(
    "code",
    [
        pytest.param("from matplotlib.figure import Figure\nf = Figure()\ndel Figure", id="object"),
        pytest.param("from matplotlib.colors import to_hex as hexed", id="function"),
        pytest.param("import matplotlib.pyplot as plt", id="module-name"),
        pytest.param(
            "import matplotlib\nmatplotlib.rcParams['lines.linewidth'] = 3\ndel matplotlib",
            id="setting",
        ),
    ],
)
def test_a_preloaded_module_the_values_need_is_saved(run, preloaded, code):
    assert "matplotlib" in saved_modules(run, preloaded, code)
