"""A pinned source archive becomes a pure-Python wheel: its package's Python files, its metadata,
nothing compiled, and the same bytes every time."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.extras import ExtraPin
from wasm_runtime.builder.source_wheels import pure_wheel, read_source_pins

PIN = ExtraPin("demo-pkg", "1.0", "0" * 64)


def sdist(path: Path, files: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"demo_pkg-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_the_wheel_has_the_python_files_and_metadata_only(tmp_path: Path) -> None:
    archive = sdist(
        tmp_path / "demo_pkg-1.0.tar.gz",
        {
            "PKG-INFO": b"Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n",
            "setup.py": b"raise SystemExit",
            "src/demo_pkg/__init__.py": b"from ._native import f\n",
            "src/demo_pkg/_native.py": b"def f(): return 1\n",
            "src/demo_pkg/_speedups.c": b"int x;",
            "tests/test_x.py": b"",
        },
    )
    wheel = pure_wheel(archive, PIN, tmp_path / "a")
    assert wheel.name == "demo_pkg-1.0-py3-none-any.whl"
    assert set(zipfile.ZipFile(wheel).namelist()) == {
        "demo_pkg/__init__.py",
        "demo_pkg/_native.py",
        "demo_pkg-1.0.dist-info/METADATA",
        "demo_pkg-1.0.dist-info/WHEEL",
        "demo_pkg-1.0.dist-info/RECORD",
    }
    assert b"Tag: py3-none-any" in zipfile.ZipFile(wheel).read("demo_pkg-1.0.dist-info/WHEEL")
    again = pure_wheel(archive, PIN, tmp_path / "b")
    assert again.read_bytes() == wheel.read_bytes()


def test_an_archive_without_the_package_is_refused(tmp_path: Path) -> None:
    archive = sdist(tmp_path / "demo_pkg-1.0.tar.gz", {"PKG-INFO": b"Name: demo-pkg\n"})
    with pytest.raises(BuildError, match="no PKG-INFO or no src/demo_pkg/"):
        pure_wheel(archive, PIN, tmp_path / "out")


def test_the_shipped_source_pins_parse() -> None:
    assert [pin.name for pin in read_source_pins()] == ["markupsafe"]
