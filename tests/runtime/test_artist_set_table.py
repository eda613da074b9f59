"""The table of matplotlib's `set()` text that the build puts into matplotlib's wheel
(builder/artist_set.py): how it is added, and that in Pyodide, with the shipped wheel, every
Artist class shows the same `set` with it as without it (tests/support/artist_set.mjs)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.node_probe import node_json
from wasm_runtime.builder.artist_set import ENTRY
from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.wheel_edit import add_entry
from wasm_runtime.paths import KERNEL_SRC, REPO_ROOT, RUNTIME_DIR

RECORD = "matplotlib-3.8.4.dist-info/RECORD"
PROBE = REPO_ROOT / "tests" / "support" / "artist_set.mjs"


def make_wheel(path: Path, *, record: bool = True) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("matplotlib/__init__.py", "")
        if record:
            wheel.writestr(RECORD, "matplotlib/__init__.py,sha256=abc,0\n")
    return path


def test_the_table_is_added_and_listed_in_record(tmp_path: Path) -> None:
    target = tmp_path / "out.whl"
    add_entry(make_wheel(tmp_path / "in.whl"), target, ENTRY, b"{}")
    with zipfile.ZipFile(target) as wheel:
        assert wheel.read(ENTRY) == b"{}"
        assert wheel.read("matplotlib/__init__.py") == b""
        assert wheel.getinfo(ENTRY).external_attr >> 16 == 0o644
        record = wheel.read(RECORD).decode().splitlines()
    assert record == ["matplotlib/__init__.py,sha256=abc,0", f"{ENTRY},,"]


def test_a_wheel_that_has_it_or_has_no_record_is_an_error(tmp_path: Path) -> None:
    source = make_wheel(tmp_path / "in.whl")
    add_entry(source, tmp_path / "once.whl", ENTRY, b"{}")
    with pytest.raises(BuildError, match="already has"):
        add_entry(tmp_path / "once.whl", tmp_path / "twice.whl", ENTRY, b"{}")
    with pytest.raises(BuildError, match="RECORD"):
        add_entry(make_wheel(tmp_path / "bare.whl", record=False), tmp_path / "x.whl", ENTRY, b"")


@pytest.fixture(scope="module")
def described(runtime_built: None) -> dict[str, Any]:
    """Both runs, from the runtime `make build` made (about 16 CPU-s of Node)."""
    builder = REPO_ROOT / "wasm_runtime" / "builder"
    described: dict[str, Any] = node_json(
        str(PROBE), f"{RUNTIME_DIR}/", str(KERNEL_SRC), str(builder), what="the set() table probe"
    )
    return described


def shipped_table() -> dict[str, Any]:
    wheel = next(RUNTIME_DIR.glob("matplotlib-3.8.4-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        table: dict[str, Any] = json.loads(archive.read(ENTRY))
    return table


def test_the_shipped_wheel_holds_a_table_for_its_matplotlib(runtime_built: None) -> None:
    table = shipped_table()
    assert (table["matplotlib"], table["python"], table["hardcopy"]) == ("3.8.4", "3.12", False)
    assert len(table["classes"]) > 100


def test_every_class_shows_the_same_set_in_pyodide(described: dict[str, Any]) -> None:
    without, with_table = described["without"], described["with"]
    assert len(without["classes"]) > 100
    assert with_table["classes"] == without["classes"]
    assert with_table["failed"] == without["failed"]


def test_matplotlibs_docstrings_are_the_same_in_pyodide(described: dict[str, Any]) -> None:
    without, with_table = described["without"], described["with"]
    assert "Line2D:kwdoc" in without["docstrings"]["substitutions"]
    assert with_table["docstrings"] == without["docstrings"]


def test_the_shipped_table_served_every_class_in_pyodide(described: dict[str, Any]) -> None:
    with_table, table = described["with"], shipped_table()
    assert with_table["hooked"] == 1
    assert with_table["served"] == len(with_table["classes"])
    recorded_kwdoc = sum(len(variants) for variants in table["kwdoc"].values())
    assert recorded_kwdoc > 5
    assert with_table["servedKwdoc"] == recorded_kwdoc
