"""display() and matplotlib figures become `displays`."""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_display_adds_one_entry_per_mime_richest_first(run, kernel):
    code = (
        "class Both:\n"
        "    def _repr_html_(self): return '<b>x</b>'\n"
        "    def __repr__(self): return 'Both()'\n"
        "display(Both(), 'plain')"
    )
    assert run(kernel, code)["displays"] == [
        {"mime": "text/html", "data": "<b>x</b>"},
        {"mime": "text/plain", "data": "Both()"},
        {"mime": "application/json", "data": '"plain"'},
        {"mime": "text/plain", "data": "'plain'"},
    ]


def test_display_of_a_dataframe_gives_html(run, kernel):
    pytest.importorskip("pandas")
    displays = run(kernel, "import pandas as pd\ndisplay(pd.DataFrame({'a': [1]}))")["displays"]
    assert [d["mime"] for d in displays] == ["text/html", "text/plain"]


def test_open_figures_become_png_displays_and_are_closed(run, kernel):
    pytest.importorskip("matplotlib")
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.figure()\nplt.plot([3, 1])"
    result = run(kernel, code)
    assert [d["mime"] for d in result["displays"]] == ["image/png", "image/png"]
    assert base64.b64decode(result["displays"][0]["data"]).startswith(PNG_SIGNATURE)
    assert run(kernel, "len(plt.get_fignums())")["value"]["text/plain"] == "0"


def test_plt_show_publishes_without_a_warning(run, kernel):
    pytest.importorskip("matplotlib")
    code = "import matplotlib.pyplot as plt\nplt.plot([1])\nplt.show()\nplt.get_fignums()"
    result = run(kernel, code)
    assert [d["mime"] for d in result["displays"]] == ["image/png"]
    assert (result["stderr"], result["value"]["text/plain"]) == ("", "[]")


def test_matplotlib_uses_the_agg_based_backend(run, kernel):
    pytest.importorskip("matplotlib")
    value = run(kernel, "import matplotlib\nmatplotlib.get_backend()")["value"]
    assert value["text/plain"] == "'module://wasmbox_kernel.mpl_backend'"


def test_matplotlib_is_not_imported_when_the_cell_does_not_use_it(tmp_path, kernel_root):
    script = (
        f"import sys, asyncio; sys.path.insert(0, {str(kernel_root)!r})\n"
        "from wasmbox_kernel import Kernel, KernelOptions\n"
        f"k = Kernel(KernelOptions(cwd={str(tmp_path)!r}))\n"
        "asyncio.run(k.run('display(1)\\n1', run_id='r'))\n"
        "print('matplotlib' in sys.modules)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "False"
