"""A run tells the worker, as it imports them, the modules the host readies for (plotly, altair):
once per module per kernel, only names from the protocol's list, whatever the code does."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from wasmbox_kernel.protocol_data import ANNOUNCED_IMPORTS

LIBRARIES = ("plotly", "altair")


@pytest.fixture
def fake_libraries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Small stand-ins named plotly and altair, first on the path; the real ones (if a test
    imported them) are put back afterwards. Like the real ones, each package's `__init__`
    imports a module of its own: `importlib.import_module` raises no audit event for the module
    it is given, only the imports inside it do."""
    libs = tmp_path / "libs"
    for name in LIBRARIES:
        (libs / name).mkdir(parents=True)
        (libs / name / "__init__.py").write_text("from . import _version\n")
        (libs / name / "_version.py").write_text("")
        (libs / name / "express.py").write_text("VALUE = 1\n")
    (libs / "plotlyx.py").write_text("")
    monkeypatch.syspath_prepend(str(libs))
    ours = lambda name: name.partition(".")[0] in (*LIBRARIES, "plotlyx")  # noqa: E731
    real = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in real:
        del sys.modules[name]
    yield
    for name in [name for name in sys.modules if ours(name)]:
        del sys.modules[name]
    sys.modules.update(real)


def test_the_list_is_the_chart_libraries():
    assert set(LIBRARIES) == ANNOUNCED_IMPORTS


def test_an_import_the_page_cannot_see_is_told_once_as_it_happens(run, kernel, fake_libraries):
    told: list[str] = []
    code = "px = __import__('plot' + 'ly.express')\nprint('after the import')"
    result = run(kernel, code, on_import=lambda name: told.append(f"{name} {len(told)}"))
    assert told == ["plotly 0"]
    assert result["stdout"] == "after the import\n"
    # Later imports of it, even after it is dropped from sys.modules, are not told again.
    again = (
        "import sys\n"
        "for n in [n for n in sys.modules if n.startswith('plotly')]:\n"
        "    del sys.modules[n]\n"
    )
    run(kernel, again + "import plotly.express", on_import=told.append)
    assert told == ["plotly 0"]
    run(kernel, "import importlib; importlib.import_module('altair')", on_import=told.append)
    assert told == ["plotly 0", "altair"]


def test_hostile_imports_tell_nothing_beyond_the_list(run, kernel, fake_libraries):
    told: list[object] = []
    code = (
        "import sys, importlib\n"
        "for i in range(200):\n"
        "    for n in [n for n in sys.modules if n.partition('.')[0] in ('plotly', 'plotlyx')]:\n"
        "        del sys.modules[n]\n"
        "    importlib.import_module('plotlyx')\n"
        "    __import__('plotly')\n"
        "sys.audit('import', 'altair', None, [], [], [])\n"  # a forged event: one listed name
        "sys.audit('import', '<b>evil</b>', None, [], [], [])\n"
        "sys.audit('import', {'module': 'plotly'}, None, [], [], [])\n"
    )
    result = run(kernel, code, on_import=told.append)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert told == ["plotly", "altair"]


def test_a_failing_callback_never_breaks_the_import(run, kernel, fake_libraries):
    def refuse(name: str) -> None:
        raise RuntimeError("the host is gone")

    result = run(kernel, "import plotly.express as px\npx.VALUE", on_import=refuse)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"]["text/plain"] == "1"


def test_without_a_callback_nothing_is_noted(run, kernel, fake_libraries):
    run(kernel, "import plotly")
    told: list[str] = []
    # plotly was imported unannounced (nobody listened); a later run imports altair.
    run(kernel, "import altair", on_import=told.append)
    assert told == ["altair"]
