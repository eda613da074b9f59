"""Installs a package archive from memory, parsing it once.

Pyodide 0.27.7's `pyodide._package_loader.unpack_buffer`, which `loadPackage` calls for every
wheel, copies the archive to a temporary file, extracts it with shutil (file-system calls to
seek, tell and read each member back from that file), then opens it twice more to find the
.dist-info directory and the shared libraries: three parses of the archive's directory, where
one from memory does (a third of each package's install time, more for many small files).

The result is the same: the same files (archive entries that are absolute or climb out with
`..` are skipped, as shutil skips them), the same INSTALLER and PYODIDE_SOURCE records and data
files (Pyodide's own helpers write them, given the one parsed archive), the same list of
libraries to load. Tar archives still go to Pyodide's own function.
"""

from __future__ import annotations

import importlib
import io
import os
import posixpath
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from zipfile import ZipFile

ZIP_FORMATS = frozenset({"zip", "whl", "wheel"})
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC


def safe_members(archive: ZipFile) -> Iterator[tuple[str, bool]]:
    """`(relative path, is a directory)` for each entry that stays inside the destination."""
    for name in archive.namelist():
        if name.startswith("/") or ".." in name.split("/"):
            continue
        yield name, name.endswith("/")


def extract(archive: ZipFile, destination: str) -> None:
    """Write every safe entry of `archive` under `destination`; each directory is made once."""
    made: set[str] = set()
    for name, is_directory in safe_members(archive):
        target = posixpath.join(destination, name)
        folder = target.rstrip("/") if is_directory else posixpath.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        if not is_directory:
            _write(target, archive.read(name))


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, _NEW_FILE, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def unpacks_as_zip(filename: str, format: str | None) -> bool:
    """Whether Pyodide would unpack this archive as a zip: its zip and whl formats, chosen by
    `format` (name or extension) if given, else by the file name."""
    if format:
        return format.removeprefix(".") in ZIP_FORMATS
    return filename.endswith(tuple(f".{name}" for name in ZIP_FORMATS))


def unpack_from_memory(loader: ModuleType) -> Callable[..., Any]:
    """An `unpack_buffer` with Pyodide's signature and results, built on `loader`'s helpers."""
    pyodide_unpack: Callable[..., Any] = loader.unpack_buffer

    def unpack_buffer(
        buffer: Any,
        *,
        filename: str = "",
        format: str | None = None,
        extract_dir: str | None = None,
        calculate_dynlibs: bool = False,
        installer: str | None = None,
        source: str | None = None,
    ) -> Any:
        name = filename.rpartition("/")[-1]
        if not unpacks_as_zip(name, format):
            return pyodide_unpack(
                buffer,
                filename=filename,
                format=format,
                extract_dir=extract_dir,
                calculate_dynlibs=calculate_dynlibs,
                installer=installer,
                source=source,
            )
        destination = Path(extract_dir or ".")
        destination.mkdir(parents=True, exist_ok=True)
        with ZipFile(io.BytesIO(buffer.to_bytes())) as archive:
            extract(archive, str(destination))
            if name.endswith(".whl"):
                loader.set_wheel_installer(name, archive, destination, installer, source)
                loader.install_datafiles(name, archive, destination)
            if not calculate_dynlibs:
                return None
            libraries = [
                str((destination / path).resolve())
                for path in archive.namelist()
                if loader.should_load_dynlib(path)
            ]
        return loader.to_js(libraries)

    unpack_buffer.unpacks_from_memory = True  # type: ignore[attr-defined]
    return unpack_buffer


def install_from_memory() -> None:
    """Make Pyodide's package loader use `unpack_from_memory` (once per interpreter). Pyodide's
    JavaScript looks the function up on the module at every install."""
    loader = importlib.import_module("pyodide._package_loader")  # only in Pyodide
    if not getattr(loader.unpack_buffer, "unpacks_from_memory", False):
        setattr(loader, "unpack_buffer", unpack_from_memory(loader))  # noqa: B010 (untyped module)
