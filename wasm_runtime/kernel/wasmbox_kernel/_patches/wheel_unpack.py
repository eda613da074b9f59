"""Installs a package archive from memory, parsing it once.

Pyodide 0.27.7's `pyodide._package_loader.unpack_buffer`, which `loadPackage` calls for every
wheel, copies the archive to a temporary file, extracts it with shutil (file-system calls to
seek, tell and read each member back from that file), then opens it twice more to find the
.dist-info directory and the shared libraries: three parses of the archive's directory, where
one from memory does (a third of each package's install time, more for many small files).
Each entry is then inflated straight from the archive's bytes rather than through ZipFile's
per-entry reader (a fifth less time again on numpy and pandas).

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
import struct
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any
from zipfile import ZIP_DEFLATED, ZIP_STORED, BadZipFile, ZipFile, ZipInfo

ZIP_FORMATS = frozenset({"zip", "whl", "wheel"})
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
_LOCAL_HEADER = b"PK\x03\x04"
_ENCRYPTED = 0x1


def safe_members(archive: ZipFile) -> Iterator[ZipInfo]:
    """Each entry that stays inside the destination."""
    for info in archive.infolist():
        name = info.filename
        if name.startswith("/") or ".." in name.split("/"):
            continue
        yield info


def extract(archive: ZipFile, destination: str) -> None:
    """Write every safe entry of `archive` under `destination`; each directory is made once."""
    made: set[str] = set()
    with _raw_view(archive) as raw:
        for info in safe_members(archive):
            target = posixpath.join(destination, info.filename)
            folder = target.rstrip("/") if info.is_dir() else posixpath.dirname(target)
            if folder not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
            if not info.is_dir():
                _write(target, member_bytes(archive, info, raw))


@contextmanager
def _raw_view(archive: ZipFile) -> Iterator[memoryview | None]:
    """The archive's bytes without a copy, when it was opened from memory."""
    source = archive.fp
    if not isinstance(source, io.BytesIO):
        yield None
        return
    with source.getbuffer() as view:
        yield view


def member_bytes(archive: ZipFile, info: ZipInfo, raw: memoryview | None) -> bytes:
    """An entry's content. A plain stored or deflated entry is inflated straight from the
    archive's bytes, checked against its CRC as ZipFile checks it: ZipFile's per-entry reader
    costs more than the inflating itself on a wheel of a thousand small files. Anything else
    (encrypted, another compression) goes to ZipFile."""
    plain = info.compress_type in (ZIP_STORED, ZIP_DEFLATED) and not info.flag_bits & _ENCRYPTED
    if raw is None or not plain:
        return archive.read(info)
    offset = info.header_offset
    if bytes(raw[offset : offset + 4]) != _LOCAL_HEADER:
        raise BadZipFile(f"Bad magic number for file header of {info.filename!r}")
    name_length, extra_length = struct.unpack_from("<HH", raw, offset + 26)
    start = offset + 30 + name_length + extra_length
    stored = raw[start : start + info.compress_size]
    deflated = info.compress_type == ZIP_DEFLATED
    data = zlib.decompress(stored, -zlib.MAX_WBITS) if deflated else bytes(stored)
    if zlib.crc32(data) != info.CRC:
        raise BadZipFile(f"Bad CRC-32 for file {info.filename!r}")
    return data


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
