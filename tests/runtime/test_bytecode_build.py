"""The build step that compiles wheels' bytecode with Pyodide's CPython in Node, and its cache."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.runtime.test_build import PYTHON_3_12_MAGIC
from tests.runtime.test_wheel_bytecode import make_wheel
from wasm_runtime.builder import bytecode
from wasm_runtime.builder.errors import BuildError
from wasm_runtime.paths import NODE_MODULES

PYODIDE = NODE_MODULES / "pyodide"


def test_wheels_are_compiled_by_pyodides_python_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = make_wheel(tmp_path / "demo-0.1-py3-none-any.whl")
    cache = tmp_path / "cache"

    compiled = bytecode.with_bytecode([wheel], PYODIDE, cache)[wheel]

    assert compiled.name == wheel.name
    with zipfile.ZipFile(compiled) as built:
        assert built.read("demo/__pycache__/__init__.cpython-312.pyc")[:4] == PYTHON_3_12_MAGIC
    # A compilation made by an older script is superseded and deleted.
    older = cache / "0123456789abcdef" / wheel.name
    older.parent.mkdir()
    older.write_bytes(b"compiled by an older script")
    compiled.unlink()
    assert bytecode.with_bytecode([wheel], PYODIDE, cache)[wheel] == compiled
    assert not older.parent.exists()
    # A second build finds it in the cache and does not need Node at all.
    monkeypatch.setattr("shutil.which", lambda _name: None)
    assert bytecode.with_bytecode([wheel], PYODIDE, cache)[wheel] == compiled


def test_a_wheel_that_is_not_a_zip_fails_the_build_by_name(tmp_path: Path) -> None:
    broken = tmp_path / "broken-0.1-py3-none-any.whl"
    broken.write_bytes(b"not a zip")
    with pytest.raises(BuildError, match=r"bytecode failed[\s\S]*broken-0\.1-py3-none-any\.whl"):
        bytecode.with_bytecode([broken], PYODIDE, tmp_path / "cache")
    assert not list((tmp_path / "cache").rglob("*.whl"))  # nothing half-made is cached
