"""Pinned pure-Python wheels from PyPI (extras.txt), cached and re-checked on every build."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from packaging.utils import canonicalize_name, parse_wheel_filename

from wasm_runtime.builder.errors import BuildError, HashMismatchError
from wasm_runtime.builder.hashing import sha256_file
from wasm_runtime.builder.pins import PYTHON_VERSION
from wasm_runtime.builder.sources import pip_download

PIN = re.compile(
    r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>\S+)\s+--hash=sha256:(?P<sha>[0-9a-f]{64})$"
)


@dataclass(frozen=True)
class ExtraPin:
    name: str
    version: str
    sha256: str

    @property
    def requirement_line(self) -> str:
        return f"{self.name}=={self.version} --hash=sha256:{self.sha256}"


def read_pins(text: str | None = None, file_name: str = "extras.txt") -> list[ExtraPin]:
    if text is None:
        text = resources.files("wasm_runtime.builder").joinpath(file_name).read_text()
    pins = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = PIN.match(line)
        if match is None:
            raise BuildError(
                f"{file_name} line {number} is not `name==version --hash=sha256:HEX`: {line}"
            )
        pins.append(ExtraPin(canonicalize_name(match["name"]), match["version"], match["sha"]))
    return pins


def find_wheel(folder: Path, pin: ExtraPin) -> Path | None:
    for path in folder.glob("*.whl"):
        name, version, _, _ = parse_wheel_filename(path.name)
        if canonicalize_name(name) == pin.name and str(version) == pin.version:
            return path
    return None


def fetch_extras(cache_dir: Path, pins: list[ExtraPin]) -> tuple[list[Path], list[str]]:
    """Return the verified wheels for `pins` and the names that had to be downloaded."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    missing = [pin for pin in pins if find_wheel(cache_dir, pin) is None]
    if missing:
        python = "".join(PYTHON_VERSION.split(".")[:2])
        ok = pip_download(
            [pin.requirement_line for pin in missing],
            cache_dir,
            "--only-binary=:all:",
            "--python-version",
            python,
        )
        if not ok:
            names = ", ".join(pin.name for pin in missing)
            raise BuildError(f"pip could not download the extras {names}: see pip's message above.")
    return verified_downloads(cache_dir, pins, find_wheel, "wheel"), [pin.name for pin in missing]


def verified_downloads(
    folder: Path, pins: list[ExtraPin], find: Callable[[Path, ExtraPin], Path | None], kind: str
) -> list[Path]:
    """The file pip downloaded for each pin, each checked against the pin's sha256."""
    files = []
    for pin in pins:
        found = find(folder, pin)
        if found is None:
            raise BuildError(f"pip gave no {kind} for {pin.name}=={pin.version}.")
        actual = sha256_file(found)
        if actual != pin.sha256:
            raise HashMismatchError(found.name, pin.sha256, actual, found)
        files.append(found)
    return files
