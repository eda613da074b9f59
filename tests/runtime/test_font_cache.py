"""The font cache put into matplotlib's wheel at build time: one entry replaced, the rest as is."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.font_cache import ENTRY
from wasm_runtime.builder.wheel_edit import replace_entry

RECORD = "matplotlib-3.8.4.dist-info/RECORD"


def make_wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("matplotlib/__init__.py", "")
        wheel.writestr(ENTRY, '{"_version": 390}')
        wheel.writestr(RECORD, f"matplotlib/__init__.py,sha256=abc,0\n{ENTRY},sha256=def,17\n")
    return path


def test_the_font_cache_entry_is_replaced_and_its_record_hash_dropped(tmp_path: Path) -> None:
    source = make_wheel(tmp_path / "matplotlib.whl")
    target = tmp_path / "out.whl"
    replace_entry(source, target, ENTRY, b'{"_version": 330}')
    with zipfile.ZipFile(target) as wheel:
        assert wheel.read(ENTRY) == b'{"_version": 330}'
        assert wheel.read("matplotlib/__init__.py") == b""
        record = wheel.read(RECORD).decode().splitlines()
    assert record == ["matplotlib/__init__.py,sha256=abc,0", f"{ENTRY},,"]


def test_a_wheel_without_the_entry_is_an_error(tmp_path: Path) -> None:
    source = tmp_path / "other.whl"
    with zipfile.ZipFile(source, "w") as wheel:
        wheel.writestr("x.py", "")
    with pytest.raises(BuildError, match=r"no matplotlib/fontlist\.json"):
        replace_entry(source, tmp_path / "out.whl", ENTRY, b"{}")
