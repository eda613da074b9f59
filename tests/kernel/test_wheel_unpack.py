"""Installing a package archive from memory: what lands on disk, what is skipped, and what goes
back to Pyodide. Its equivalence with Pyodide's own installer on real wheels is checked in
Chromium (tests/browser/test_runtime_boot.py)."""

from __future__ import annotations

import io
import types
import zipfile
from pathlib import Path
from typing import Any

import pytest
from wasmbox_kernel._patches.wheel_unpack import extract, unpack_from_memory, unpacks_as_zip


def archive_of(entries: dict[str, bytes]) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return data.getvalue()


class Buffer:
    """Stands for the JavaScript Uint8Array that Pyodide hands over."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def to_bytes(self) -> bytes:
        return self.data


def files_under(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_extract_writes_nested_files_and_empty_directories(tmp_path: Path) -> None:
    data = archive_of({"pkg/__init__.py": b"", "pkg/zone/Europe/Paris": b"TZif", "empty/": b""})
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        extract(archive, str(tmp_path))
    assert files_under(tmp_path) == {"pkg/__init__.py": b"", "pkg/zone/Europe/Paris": b"TZif"}
    assert (tmp_path / "empty").is_dir()


def archive_with(entries: dict[str, tuple[bytes, int]]) -> bytes:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, (content, method) in entries.items():
            archive.writestr(name, content, compress_type=method)
    return data.getvalue()


def test_extract_reads_stored_deflated_and_other_methods_alike(tmp_path: Path) -> None:
    text = b"numbers " * 1000
    data = archive_with(
        {
            "stored.txt": (text, zipfile.ZIP_STORED),
            "deflated.txt": (text, zipfile.ZIP_DEFLATED),
            "bzip2.txt": (text, zipfile.ZIP_BZIP2),  # not inflated here: ZipFile reads it
            "empty.txt": (b"", zipfile.ZIP_DEFLATED),
        }
    )
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        extract(archive, str(tmp_path))
    expected = {"stored.txt": text, "deflated.txt": text, "bzip2.txt": text, "empty.txt": b""}
    assert files_under(tmp_path) == expected


def test_a_damaged_entry_is_refused_as_zipfile_refuses_it(tmp_path: Path) -> None:
    content = b"print('hello')\n" * 50
    data = bytearray(archive_with({"pkg/mod.py": (content, zipfile.ZIP_STORED)}))
    at = bytes(data).index(content)
    data[at] ^= 0xFF  # one byte changed, the CRC in the directory kept
    damaged = zipfile.ZipFile(io.BytesIO(bytes(data)))
    with damaged as archive, pytest.raises(zipfile.BadZipFile, match="CRC"):
        extract(archive, str(tmp_path))


def test_an_archive_read_from_a_file_is_extracted_too(tmp_path: Path) -> None:
    path = tmp_path / "pkg.zip"
    path.write_bytes(archive_of({"pkg/a.py": b"x = 1"}))
    with zipfile.ZipFile(path) as archive:
        extract(archive, str(tmp_path / "out"))
    assert files_under(tmp_path / "out") == {"pkg/a.py": b"x = 1"}


def test_extract_skips_entries_that_leave_the_destination(tmp_path: Path) -> None:
    destination = tmp_path / "site"
    destination.mkdir()
    escapes = {"/abs.py": b"x", "../up.py": b"x", "pkg/../../up2.py": b"x"}
    data = archive_of({**escapes, "pkg/a..b.py": b"kept", "ok.py": b"kept"})
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        extract(archive, str(destination))
    assert files_under(tmp_path) == {"site/pkg/a..b.py": b"kept", "site/ok.py": b"kept"}


@pytest.mark.parametrize(
    ("filename", "format", "expected"),
    [
        ("numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", None, True),
        ("openblas-0.3.26.zip", None, True),
        ("lib.tar.gz", None, False),
        ("anything", "zip", True),
        ("anything", ".whl", True),
        ("anything", "wheel", True),
        ("x.zip", "gztar", False),  # an explicit format wins, as in Pyodide
    ],
)
def test_which_archives_unpack_as_zip(filename: str, format: str | None, expected: bool) -> None:
    assert unpacks_as_zip(filename, format) is expected


class Loader(types.ModuleType):
    """The parts of `pyodide._package_loader` used, recording how they were called."""

    def __init__(self) -> None:
        super().__init__("fake_loader")
        self.calls: list[tuple[str, Any]] = []

    def unpack_buffer(self, buffer: Buffer, **kwargs: Any) -> str:
        self.calls.append(("pyodide unpack", kwargs))
        return "pyodide's result"

    def set_wheel_installer(self, *args: Any) -> None:
        self.calls.append(("installer", args[0]))

    def install_datafiles(self, *args: Any) -> None:
        self.calls.append(("datafiles", args[0]))

    @staticmethod
    def should_load_dynlib(path: str) -> bool:
        return path.endswith(".so")

    @staticmethod
    def to_js(value: list[str]) -> tuple[str, ...]:
        return tuple(value)


def test_a_wheel_is_extracted_and_recorded_and_its_libraries_listed(tmp_path: Path) -> None:
    loader = Loader()
    wheel = archive_of({"pkg/core.cpython-312-wasm32-emscripten.so": b"\0asm", "pkg/a.py": b""})
    libraries = unpack_from_memory(loader)(
        Buffer(wheel),
        filename="https://host/runtime/pkg-1.0-cp312-cp312-pyodide_2024_0_wasm32.whl",
        extract_dir=str(tmp_path),
        calculate_dynlibs=True,
        installer="pyodide.loadPackage",
        source="pyodide",
    )
    assert set(files_under(tmp_path)) == {"pkg/core.cpython-312-wasm32-emscripten.so", "pkg/a.py"}
    name = "pkg-1.0-cp312-cp312-pyodide_2024_0_wasm32.whl"
    assert loader.calls == [("installer", name), ("datafiles", name)]
    assert libraries == (str((tmp_path / "pkg/core.cpython-312-wasm32-emscripten.so").resolve()),)


def test_a_tar_archive_goes_to_pyodides_own_unpack(tmp_path: Path) -> None:
    loader = Loader()
    result = unpack_from_memory(loader)(
        Buffer(b"not read here"), filename="lib.tar.gz", extract_dir=str(tmp_path), source="x"
    )
    assert result == "pyodide's result"
    assert loader.calls == [
        (
            "pyodide unpack",
            {
                "filename": "lib.tar.gz",
                "format": None,
                "extract_dir": str(tmp_path),
                "calculate_dynlibs": False,
                "installer": None,
                "source": "x",
            },
        )
    ]
    assert files_under(tmp_path) == {}
