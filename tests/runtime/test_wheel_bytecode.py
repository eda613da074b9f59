"""Bytecode added to wheels at build time: used as is after unpacking, sources kept, bad modules
left to compile at import. Under this CPython here; the build runs the same code in Pyodide's."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from importlib.util import cache_from_source
from pathlib import Path

from wasm_runtime.builder.wheel_bytecode import add_bytecode

RECORD = "demo-0.1.dist-info/RECORD"


def make_wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("demo/__init__.py", "VALUE = 'from the wheel'\n")
        wheel.writestr("demo/py2.py", "print 'python 2'\n")
        wheel.writestr("demo-0.1.dist-info/METADATA", "Name: demo\nVersion: 0.1\n")
        wheel.writestr(RECORD, "demo/__init__.py,,\ndemo/py2.py,,\n")
    return path


def test_each_module_that_compiles_gets_an_unchecked_pyc_listed_in_record(tmp_path: Path) -> None:
    source = make_wheel(tmp_path / "demo-0.1-py3-none-any.whl")
    target = tmp_path / "out.whl"

    assert add_bytecode(str(source), str(target)) == 1

    pyc_name = cache_from_source("demo/__init__.py")
    with zipfile.ZipFile(target) as wheel, zipfile.ZipFile(source) as original:
        names = set(wheel.namelist())
        assert names == set(original.namelist()) | {pyc_name}  # nothing for py2.py
        for name in original.namelist():
            if name != RECORD:
                assert wheel.read(name) == original.read(name)
        assert f"{pyc_name},," in wheel.read(RECORD).decode().splitlines()
        flags = int.from_bytes(wheel.read(pyc_name)[4:8], "little")
    assert flags == 0b01  # hash-based, unchecked: fresh file times cannot invalidate it


def test_the_pyc_is_what_gets_imported_after_unpacking(tmp_path: Path) -> None:
    target = tmp_path / "out.whl"
    add_bytecode(str(make_wheel(tmp_path / "demo.whl")), str(target))
    site = tmp_path / "site"
    with zipfile.ZipFile(target) as wheel:
        wheel.extractall(site)
    # Change the source after unpacking: only a module loaded from the pyc keeps the old value.
    (site / "demo" / "__init__.py").write_text("VALUE = 'compiled at import'\n")
    imported = subprocess.run(
        [sys.executable, "-c", "import demo; print(demo.VALUE)"],
        cwd=site,
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "from the wheel"


def test_the_output_is_the_same_on_every_run(tmp_path: Path) -> None:
    source = make_wheel(tmp_path / "demo.whl")
    add_bytecode(str(source), str(tmp_path / "a.whl"))
    add_bytecode(str(source), str(tmp_path / "b.whl"))
    assert (tmp_path / "a.whl").read_bytes() == (tmp_path / "b.whl").read_bytes()
