"""The package snapshot: the start-up snapshot's state plus numpy, pandas and cloudpickle loaded
and imported, made with Node at build time, with the link record a worker needs to restore it.

A worker resuming a session whose variables need only these packages boots from it and skips
their install and import (about 2.3 s of W11's resume). A memory snapshot holds the wasm heap
only: the packages' side modules are re-instantiated at the places the record gives, and their
files written back from the same wheels (sandbox/side-modules.ts). Like the base snapshot it
freezes the random states and the str hash seed, so the worker reseeds `random` and numpy's.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyodide_lock import PyodideLockSpec

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.lockfile import closure
from wasm_runtime.builder.snapshot import snapshot_key

SCRIPT = Path(__file__).with_name("make_package_snapshot.mjs")
# The record's GOT digest, shared with the worker that checks it.
GOT_DIGEST = Path(__file__).parent.parent / "protocol" / "got-digest.mjs"
# Loaded and imported in this order; cloudpickle is what a session's variables are saved with.
PACKAGES = ("numpy", "pandas", "cloudpickle")
SNAPSHOT_FILE = "snapshot-pandas.bin"
RECORD_FILE = "snapshot-pandas.json"
BUNDLE_FILE = "snapshot-pandas-files.bin"


@dataclass(frozen=True)
class PackageSnapshot:
    snapshot: Path
    record: Path
    bundle: Path

    def outputs(self) -> tuple[Path, Path, Path]:
        """In the order the script writes them; the record last (see build_package_snapshot)."""
        return self.snapshot, self.bundle, self.record


def package_snapshot_key(lock: PyodideLockSpec, kernel_wheel: Path) -> str:
    """Changes with the base snapshot's inputs, this script, and any wheel it loads."""
    digest = hashlib.sha256(
        snapshot_key(kernel_wheel).encode() + SCRIPT.read_bytes() + GOT_DIGEST.read_bytes()
    )
    for name in sorted(closure(lock, PACKAGES)):
        spec = lock.packages[name]
        digest.update(f"{name}={spec.file_name}={spec.sha256}\n".encode())
    return digest.hexdigest()[:16]


def build_package_snapshot(
    pyodide_dir: Path, runtime_dir: Path, lock: PyodideLockSpec, kernel_wheel: Path, cache_dir: Path
) -> PackageSnapshot | None:
    """The package snapshot for this runtime (None when it does not ship all of PACKAGES), made
    with Node only when none is cached. `runtime_dir` holds the shipped wheels and their lock."""
    if any(name not in lock.packages for name in PACKAGES):
        return None
    folder = cache_dir / package_snapshot_key(lock, kernel_wheel)
    made = PackageSnapshot(folder / SNAPSHOT_FILE, folder / RECORD_FILE, folder / BUNDLE_FILE)
    if all(path.is_file() for path in made.outputs()):
        return made
    node = shutil.which("node")
    if node is None:
        raise BuildError("Node.js is needed to make the snapshots: install Node 20 or newer.")
    folder.mkdir(parents=True, exist_ok=True)
    parts = [path.with_name(path.name + ".part") for path in made.outputs()]
    done = subprocess.run(  # noqa: S603 - fixed script, paths we made
        [
            node,
            str(SCRIPT),
            str(pyodide_dir),
            str(runtime_dir),
            str(kernel_wheel),
            ",".join(PACKAGES),
            *map(str, (parts[0], parts[2], parts[1])),  # the script's order: bin, json, files
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0 or not all(part.is_file() for part in parts):
        raise BuildError(f"Making the package snapshot failed:\n{done.stderr[-2000:]}")
    # The record last: a cached record always has its snapshot and bundle beside it.
    for part, path in zip(parts, made.outputs(), strict=True):
        part.replace(path)
    return made


def read_record(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text())
    return record
