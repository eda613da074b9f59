"""matplotlib's set-up: the backend chosen before any import, and the spare's throwaway figure."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest


def in_fresh_python(kernel_root, body: str) -> str:
    """What `body` prints in a new interpreter that imports the kernel from `kernel_root`."""
    script = f"import sys; sys.path.insert(0, {str(kernel_root)!r})\n" + body
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return completed.stdout.strip()


def test_a_matplotlib_imported_after_configure_uses_our_backend(kernel_root):
    """A spare imports matplotlib before any kernel exists: the environment must already say so.
    (Not imported here: this process's matplotlib must pick its backend after a kernel's set-up.)"""
    if importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed")
    printed = in_fresh_python(
        kernel_root,
        "import os; os.environ.pop('MPLBACKEND', None)\n"
        "from wasmbox_kernel.plotting import configure_matplotlib\n"
        "configure_matplotlib()\n"
        "import matplotlib.pyplot as plt\n"
        "print(plt.get_backend())",
    )
    assert printed == "module://wasmbox_kernel.mpl_backend"


def test_warming_matplotlib_leaves_no_figure_and_the_same_settings(run, kernel):
    pytest.importorskip("matplotlib")
    from wasmbox_kernel.plotting import warm_package

    run(kernel, "import matplotlib.pyplot as plt\nplt.rcParams['lines.linewidth'] = 3")
    warm_package("matplotlib")
    result = run(kernel, "plt.get_fignums(), plt.rcParams['lines.linewidth']")
    assert result["value"]["text/plain"] == "([], 3.0)"
    assert run(kernel, "plt.plot([1, 2])")["displays"][0]["mime"] == "image/png"


def test_warming_a_package_without_a_warm_up_does_nothing(tmp_path, kernel_root):
    script = (
        f"import sys; sys.path.insert(0, {str(kernel_root)!r})\n"
        "from wasmbox_kernel.plotting import warm_package\n"
        "warm_package('numpy'); warm_package('matplotlib')\n"
        "print('matplotlib' in sys.modules)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "False"


def test_a_preloads_smaller_import_steps_are_ones_the_package_imports_anyway(kernel_root):
    """The steps before matplotlib's own imports (pylab among them) add no module of their own."""
    if importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed")
    printed = in_fresh_python(
        kernel_root,
        "import os; os.environ['MPLBACKEND'] = 'Agg'\n"
        "from wasmbox_kernel.plotting import import_steps\n"
        "steps = import_steps('matplotlib')\n"
        "import pylab\n"
        "print(bool(steps) and all(m in sys.modules for m in steps), import_steps('numpy'))",
    )
    assert printed == "True []"
