"""Pure-Python wheels made from pinned PyPI source archives (extras-source.txt).

Some packages the runtime needs have an optional C speed-up and therefore no `py3-none-any` wheel
on PyPI, and Pyodide's own build of them is only on its CDN (markupsafe, which jinja2 and so altair
import). Their source archive is pinned by sha256 like the extras; the wheel is written from its
Python files alone, without running its build script, so the package takes its plain-Python path
(markupsafe falls back to `_native` when `_speedups` is missing). Same input, same bytes: entries
are sorted and dated 1980-01-01.
"""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

from packaging.utils import canonicalize_name

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.extras import ExtraPin, read_pins, verified_downloads
from wasm_runtime.builder.sources import pip_download

SOURCE_PINS = "extras-source.txt"
_EPOCH = (1980, 1, 1, 0, 0, 0)
_SKIPPED_SUFFIXES = (".c", ".h", ".pyx", ".pxd", ".so", ".pyd")


def read_source_pins(text: str | None = None) -> list[ExtraPin]:
    return read_pins(text, file_name=SOURCE_PINS)


def fetch_source_wheels(cache_dir: Path, pins: list[ExtraPin]) -> tuple[list[Path], list[str]]:
    """The pure wheel of each pinned source archive, and the names that had to be downloaded."""
    archives = cache_dir / "sources"
    archives.mkdir(parents=True, exist_ok=True)
    missing = [pin for pin in pins if _find_archive(archives, pin) is None]
    if missing and not pip_download(
        [pin.requirement_line for pin in missing], archives, "--no-binary=:all:"
    ):
        names = ", ".join(pin.name for pin in missing)
        raise BuildError(f"pip could not download the source archives of {names}: see above.")
    archived = verified_downloads(archives, pins, _find_archive, "source archive")
    wheels = [
        pure_wheel(archive, pin, cache_dir / "wheels")
        for archive, pin in zip(archived, pins, strict=True)
    ]
    return wheels, [pin.name for pin in missing]


def _find_archive(folder: Path, pin: ExtraPin) -> Path | None:
    stem = f"{pin.name.replace('-', '_')}-{pin.version}.tar.gz"
    for path in folder.glob("*.tar.gz"):
        if path.name.lower() == stem.lower():
            return path
    return None


def pure_wheel(archive: Path, pin: ExtraPin, out_dir: Path) -> Path:
    """Write `name-version-py3-none-any.whl` from the archive's Python package (src/ layout)."""
    dist = pin.name.replace("-", "_")
    out = out_dir / f"{dist}-{pin.version}-py3-none-any.whl"
    if out.is_file():
        return out
    files: dict[str, bytes] = {}
    metadata: bytes | None = None
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            parts = PurePosixPath(member.name).parts[1:]  # below `name-version/`
            data = _read(tar, member)
            if parts == ("PKG-INFO",):
                metadata = data
            elif (
                len(parts) > 2
                and parts[0] == "src"
                and canonicalize_name(parts[1]) == pin.name
                and not member.name.endswith(_SKIPPED_SUFFIXES)
            ):
                files["/".join(parts[1:])] = data
    if metadata is None or not any(name.endswith("/__init__.py") for name in files):
        raise BuildError(f"{archive.name} has no PKG-INFO or no src/{dist}/ package to install.")
    info = f"{dist}-{pin.version}.dist-info"
    files[f"{info}/METADATA"] = metadata
    files[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: wasmbox\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in sorted(files.items())]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in sorted(files.items()):
            entry = zipfile.ZipInfo(name, date_time=_EPOCH)
            entry.external_attr = 0o644 << 16
            wheel.writestr(entry, data, zipfile.ZIP_DEFLATED)
    out.write_bytes(buffer.getvalue())
    return out


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = tar.extractfile(member)
    if handle is None:
        raise BuildError(f"cannot read {member.name}")
    with handle:
        return handle.read()


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
