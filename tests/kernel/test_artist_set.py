"""matplotlib's `set()` text from the build's table (wasmbox_kernel/_patches/artist_set.py).

With the dev environment's matplotlib (another version than the sandbox's 3.8.4, so the mechanism,
not one table, is what is tested): a fresh interpreter records a table while importing all of
matplotlib, another imports it all again with the table in use, and every Artist class's `set`
must look the same to `help()` and `inspect` in both. The shipped table itself is compared the
same way in Pyodide (tests/runtime/test_artist_set_table.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, ClassVar

import pytest
from wasmbox_kernel._patches import artist_set
from wasmbox_kernel._patches.artist_set import TABLE_NAME, Table, read_table, shipped_table_path

from wasm_runtime.builder.artist_set import ENTRY

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "wasm_runtime" / "kernel"
BUILDER = ROOT / "wasm_runtime" / "builder"

# Runs in a new interpreter: argv = mode ("record" or "use"), table path, output path.
DRIVER = """
import json, sys
from pathlib import Path
import record_artist_set
from wasmbox_kernel._patches import artist_set
from wasmbox_kernel.after_import import after_import

mode, table_path, output = sys.argv[1:4]
tables = []
if mode == "record":
    import matplotlib.artist
    recorder = artist_set.Recorder(matplotlib.artist)
else:
    hook = lambda module: tables.append(artist_set.use_table(module, table_path))
    after_import({"matplotlib.artist": hook})
failed = record_artist_set.import_all()
# matplotlib's own classes and kwdoc() calls
recorded = [recorder.recorded, recorder.recorded_kwdoc] if mode == "record" else None
if mode == "record":
    Path(table_path).write_text(json.dumps(recorder.table()))

from matplotlib.lines import Line2D

class UserLine(Line2D):  # a user's subclass, with a property of its own
    def set_wobble(self, wobble):
        '''Set the wobble.

        Parameters
        ----------
        wobble : float
        '''

Path(output).write_text(json.dumps({
    "classes": record_artist_set.describe_classes(),
    "failed": failed,
    "docstrings": record_artist_set.describe_docstrings(),
    "served": [tables[0].served, tables[0].served_kwdoc] if tables and tables[0] else None,
    "recorded": recorded,
}))
"""


def run_driver(mode: str, table: Path, output: Path, cwd: Path) -> dict[str, Any]:
    path = os.pathsep.join([str(KERNEL), str(BUILDER)])
    env = {**os.environ, "PYTHONPATH": path, "MPLBACKEND": "agg"}
    env |= {"MPLCONFIGDIR": str(cwd / "mplconfig"), "HOME": str(cwd)}
    command = [sys.executable, "-c", DRIVER, mode, str(table), str(output)]
    subprocess.run(command, cwd=cwd, env=env, check=True, timeout=300)
    result: dict[str, Any] = json.loads(output.read_text())
    return result


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """matplotlib as it computes itself (recording the table), then with the table, run from a
    folder where a session has planted tables of its own (working directory, MPLCONFIGDIR,
    HOME): those must not be read."""
    work = tmp_path_factory.mktemp("artist-set")
    table = work / "table.json"
    without = run_driver("record", table, work / "without.json", work)
    planted = tamper(json.loads(table.read_text()))
    (work / "mplconfig").mkdir(exist_ok=True)
    for folder in (work, work / "mplconfig"):
        (folder / TABLE_NAME).write_text(json.dumps(planted))
    with_table = run_driver("use", table, work / "with.json", work)
    return {"without": without, "with": with_table, "table": json.loads(table.read_text())}


def tamper(table: dict[str, Any]) -> dict[str, Any]:
    return {**table, "strings": [f"TAMPERED {text}" for text in table["strings"]]}


def test_every_artist_class_shows_the_same_set_with_the_table(runs: dict[str, Any]) -> None:
    without, with_table = runs["without"]["classes"], runs["with"]["classes"]
    assert len(without) > 100
    assert with_table.keys() == without.keys()
    for name, described in without.items():
        assert with_table[name] == described, name


def test_matplotlibs_docstrings_are_the_same_with_the_table(runs: dict[str, Any]) -> None:
    """Those filled from `kwdoc(cls)` (`%(Line2D:kwdoc)s`) included."""
    without, with_table = runs["without"]["docstrings"], runs["with"]["docstrings"]
    assert any(key.endswith(":kwdoc") for key in without["substitutions"])
    assert with_table == without


def test_the_table_served_every_matplotlib_class(runs: dict[str, Any]) -> None:
    """Every class and kwdoc() call recorded came from it: all matplotlib makes once
    `matplotlib.artist` has run (3.11's ColorizingArtist is made before, in its import)."""
    classes, kwdocs = runs["without"]["recorded"]
    assert classes > 100
    assert kwdocs > 5
    assert runs["with"]["served"] == [classes, kwdocs]
    assert runs["with"]["failed"] == runs["without"]["failed"]


def test_a_user_subclass_gets_its_own_set(runs: dict[str, Any]) -> None:
    described = runs["with"]["classes"]["__main__:UserLine#0"]
    signature, _, _, doc, _, qualname = described
    assert "wobble=<UNSET>" in signature
    assert "wobble: float" in doc
    assert qualname == "UserLine.set"


def test_tables_a_session_planted_are_not_read(runs: dict[str, Any]) -> None:
    assert not any("TAMPERED" in json.dumps(d) for d in runs["with"]["classes"].values())


def test_the_table_is_shipped_beside_the_artist_module() -> None:
    artist = ModuleType("matplotlib.artist")
    artist.__file__ = "/lib/python3.12/site-packages/matplotlib/artist.py"
    assert shipped_table_path(artist) == f"/lib/python3.12/site-packages/{ENTRY}"
    assert f"matplotlib/{TABLE_NAME}" == ENTRY


# The checks below use a stand-in for matplotlib: no import, no subprocess.


UNSET = object()


class FakeArtist:
    _PROPERTIES_EXCLUDED_FROM_SET: ClassVar[list[str]] = ["figure"]

    def set(self, *, alpha: object = UNSET) -> None:
        pass

    @classmethod
    def _update_set_signature_and_docstring(cls) -> None:
        cls.set.__doc__ = "computed"

    def set_alpha(self, alpha: float) -> None:
        pass


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    matplotlib = SimpleNamespace(__version__="9.9.9", rcParams={"docstring.hardcopy": False})
    monkeypatch.setitem(sys.modules, "matplotlib", matplotlib)

    class Line(FakeArtist):
        def set_color(self, color: str) -> None:
            pass

    Line.__module__ = "matplotlib.lines"
    Line.__qualname__ = "Line"
    artist = SimpleNamespace(Artist=FakeArtist)
    table = {
        "format": artist_set.FORMAT,
        "matplotlib": "9.9.9",
        "python": artist_set.python_version(),
        "hardcopy": False,
        "excluded": ["figure"],
        "strings": ["alpha", "color", "from the table", "kwdoc from the table"],
        "classes": {"matplotlib.lines:Line": {artist_set.fingerprint(Line): [[0, 1], [2]]}},
        "kwdoc": {"matplotlib.lines:Line": {artist_set.fingerprint(Line): [[3]]}},
    }
    return SimpleNamespace(matplotlib=matplotlib, artist=artist, table=table, Line=Line)


def use(fake: SimpleNamespace, path: Path, table: dict[str, Any]) -> Table | None:
    path.write_text(json.dumps(table))
    return read_table(fake.artist, str(path))


def computed_or_table(table: Table, cls: Any) -> str:
    cls.set = lambda self, **kwargs: None
    table.update(cls, lambda c: setattr(vars(c)["set"], "__doc__", "computed"))
    return str(cls.set.__doc__)


def test_a_fitting_table_gives_the_recorded_set(fake: SimpleNamespace, tmp_path: Path) -> None:
    table = use(fake, tmp_path / "t.json", fake.table)
    assert table is not None
    assert computed_or_table(table, fake.Line) == "from the table"
    parameters = fake.Line.set.__signature__.parameters
    assert list(parameters) == ["self", "alpha", "color"]
    assert parameters["alpha"].default is UNSET
    assert fake.Line.set._autogenerated_signature is True
    assert table.served == 1


@pytest.mark.parametrize(
    ("key", "value"),
    [("matplotlib", "3.8.4"), ("python", "2.7"), ("format", 0)],
)
def test_a_table_for_another_version_is_ignored(
    fake: SimpleNamespace, tmp_path: Path, key: str, value: object
) -> None:
    assert use(fake, tmp_path / "t.json", {**fake.table, key: value}) is None


@pytest.mark.parametrize("content", ["", "{", "[]", '{"format": 1}', "null"])
def test_a_malformed_table_is_ignored(fake: SimpleNamespace, tmp_path: Path, content: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    assert read_table(fake.artist, str(path)) is None
    assert read_table(fake.artist, str(tmp_path / "missing.json")) is None


def test_kwdoc_of_a_recorded_class_comes_from_the_table(
    fake: SimpleNamespace, tmp_path: Path
) -> None:
    table = use(fake, tmp_path / "t.json", fake.table)
    assert table is not None
    computed = lambda obj: "computed"  # noqa: E731
    assert table.kwdoc(fake.Line, computed) == "kwdoc from the table"
    assert table.kwdoc(fake.Line(), computed) == "computed"  # an instance: matplotlib's
    assert table.kwdoc([fake.Line()], computed) == "computed"
    assert table.kwdoc(FakeArtist, computed) == "computed"  # not recorded
    fake.Line.set_width = lambda self, width: None
    assert table.kwdoc(fake.Line, computed) == "computed"
    assert table.served_kwdoc == 1


def test_what_the_table_was_made_from_must_still_hold(
    fake: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = use(fake, tmp_path / "t.json", fake.table)
    assert table is not None
    fake.matplotlib.rcParams["docstring.hardcopy"] = True
    assert computed_or_table(table, fake.Line) == "computed"
    fake.matplotlib.rcParams["docstring.hardcopy"] = False
    monkeypatch.setattr(FakeArtist, "_PROPERTIES_EXCLUDED_FROM_SET", [])
    assert computed_or_table(table, fake.Line) == "computed"
    monkeypatch.undo()
    fake.Line.set_width = lambda self, width: None  # a setter the table never saw
    assert computed_or_table(table, fake.Line) == "computed"
    del fake.Line.set_width
    fake.Line.set_color = lambda self, color: None  # a setter replaced
    assert computed_or_table(table, fake.Line) == "computed"
    assert table.served == 0


def test_a_table_that_does_not_fit_falls_back(fake: SimpleNamespace, tmp_path: Path) -> None:
    """Entries no recording makes (a name that is no identifier, an index out of range) are
    computed by matplotlib, never an error at import."""
    key = "matplotlib.lines:Line"
    fp = artist_set.fingerprint(fake.Line)
    for entry in ([[0], [9]], [[2], [0]], "nonsense"):
        broken = {**fake.table, "classes": {key: {fp: entry}}}
        table = use(fake, tmp_path / "t.json", broken)
        assert table is not None
        assert computed_or_table(table, fake.Line) == "computed"
