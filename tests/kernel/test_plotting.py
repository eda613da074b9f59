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


def test_released_fonts_leave_no_font_file_open_and_are_read_again(kernel_root, tmp_path):
    """Before the plot-ready snapshot is made: no font file may stay open (a restored worker
    would not have it), and the next figure opens and reads them again. The config dir is made
    again where a new worker's /tmp lacks it."""
    if importlib.util.find_spec("matplotlib") is None:
        pytest.skip("matplotlib is not installed")
    printed = in_fresh_python(
        kernel_root,
        f"import os; os.environ['MPLCONFIGDIR'] = {str(tmp_path / 'mpl')!r}\n"
        "from wasmbox_kernel.plotting import configure_matplotlib, release_font_files\n"
        "print(os.path.isdir(configure_matplotlib()))\n"
        "release_font_files()  # nothing imported yet: nothing to do\n"
        "import gc, io, matplotlib.pyplot as plt\n"
        "from matplotlib import font_manager\n"
        "def fonts_open():\n"
        "    return sum(isinstance(o, io.BufferedReader) and not o.closed\n"
        "               and o.name.endswith('.ttf') for o in gc.get_objects())\n"
        "plt.figure(); plt.title('x'); plt.savefig(io.BytesIO(), format='png'); plt.close('all')\n"
        "before = fonts_open()\n"
        "release_font_files()\n"
        "print(before > 0, fonts_open(), font_manager._get_font.cache_info().currsize)\n"
        "plt.figure(); plt.title('y'); plt.savefig(io.BytesIO(), format='png'); plt.close('all')\n"
        "print(fonts_open() > 0)",
    )
    assert printed.splitlines() == ["True", "True 0 0", "True"]
