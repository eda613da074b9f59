"""environment(): versions, limits and the differences from CPython a model must know."""

from __future__ import annotations

import json
import platform
import tempfile

import pytest


def test_environment_shape(kernel):
    env = kernel.environment()
    assert set(env) == {"python", "packages", "limits", "notes"}
    assert env["python"] == platform.python_version()
    assert env["packages"] == {"matplotlib": "3.8.4", "numpy": "2.0.2", "pandas": "2.2.3"}
    assert json.loads(json.dumps(env)) == env


def test_limits(make_kernel):
    env = make_kernel(stdout_limit=10, recursion_limit=300).environment()
    assert env["limits"] == {
        "stdoutBytes": 10,
        "stderrBytes": 1_000_000,
        "recursionLimit": 300,
        "cStackLevels": None,
        "maxCodeBytes": 1_000_000,
    }


@pytest.mark.parametrize(
    ("levels", "fragment"),
    [
        pytest.param(None, "how soon depends on the browser", id="engine-not-measured"),
        pytest.param(750, "past about 750 levels in this browser", id="measured"),
    ],
)
def test_c_stack_depth_is_the_engines(make_kernel, levels, fragment):
    env = make_kernel(c_stack_levels=levels).environment()
    assert env["limits"]["cStackLevels"] == levels
    assert any(fragment in note for note in env["notes"])


@pytest.mark.parametrize(
    "fragment",
    [
        pytest.param("1783293664", id="numpy-int32"),
        pytest.param("No network", id="network"),
        pytest.param("threading.Thread.start() fails", id="threads"),
        pytest.param("subprocess", id="subprocess"),
        pytest.param("less than 4 GB", id="memory"),
        pytest.param("filesystem is in memory", id="filesystem"),
        pytest.param("input() raises EOFError unless the host answers it", id="input"),
        pytest.param("from wasmbox import tools", id="tools"),
        pytest.param("time.sleep() blocks", id="sleep"),
        pytest.param("statsmodels, regex and lxml are not here", id="compiled-missing"),
    ],
)
def test_notes_mention(kernel, fragment):
    assert any(fragment in note for note in kernel.environment()["notes"])


def test_each_kernel_reseeds_random() -> None:
    """A snapshot-restored worker starts with `random` in a frozen state; the kernel reseeds it."""
    import random

    from wasmbox_kernel import Kernel, KernelOptions

    state = random.getstate()
    draws = []
    for _ in range(2):
        random.setstate(state)  # what every snapshot-restored worker starts with
        Kernel(KernelOptions(cwd=tempfile.mkdtemp()))
        draws.append(random.random())
    assert draws[0] != draws[1]
