"""The package snapshot: the start-up snapshot's state plus numpy, pandas and cloudpickle loaded
and imported, made with Node at build time, with the link record a worker needs to restore it.
The plot-ready snapshot is made the same way, from matplotlib as a spare's idle preload loads it.

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


@dataclass(frozen=True)
class SnapshotKind:
    """What a snapshot of this kind holds and the names of its files. `warm`: made as a booted
    spare's preload is (the kernel's prepare_interpreter first, each package's import steps and
    first use: matplotlib's first figure drawn and closed)."""

    packages: tuple[str, ...]
    snapshot_file: str
    record_file: str
    bundle_file: str
    warm: bool = False


# Loaded and imported in this order; cloudpickle is what a session's variables are saved with.
PACKAGE_SNAPSHOT = SnapshotKind(
    ("numpy", "pandas", "cloudpickle"),
    "snapshot-pandas.bin",
    "snapshot-pandas.json",
    "snapshot-pandas-files.bin",
)
# What a spare's idle preload loads (sdk/pool.ts: IDLE_PACKAGES), imported and warmed as it does:
# new spares boot from it once the page has kept its files (sdk/plot-snapshot.ts).
PLOT_SNAPSHOT = SnapshotKind(
    ("matplotlib",),
    "snapshot-plot.bin",
    "snapshot-plot.json",
    "snapshot-plot-files.bin",
    warm=True,
)
PACKAGES = PACKAGE_SNAPSHOT.packages
SNAPSHOT_FILE = PACKAGE_SNAPSHOT.snapshot_file
RECORD_FILE = PACKAGE_SNAPSHOT.record_file
BUNDLE_FILE = PACKAGE_SNAPSHOT.bundle_file


@dataclass(frozen=True)
class PackageSnapshot:
    snapshot: Path
    record: Path
    bundle: Path

    def outputs(self) -> tuple[Path, Path, Path]:
        """In the order the script writes them; the record last (see build_package_snapshot)."""
        return self.snapshot, self.bundle, self.record


def package_snapshot_key(
    lock: PyodideLockSpec, kernel_wheel: Path, kind: SnapshotKind = PACKAGE_SNAPSHOT
) -> str:
    """Changes with the base snapshot's inputs (the kernel among them), this script, what the
    kind loads and how, and any wheel it loads."""
    digest = hashlib.sha256(
        snapshot_key(kernel_wheel).encode() + SCRIPT.read_bytes() + GOT_DIGEST.read_bytes()
    )
    if kind.warm:
        digest.update(b"warm\n")
    digest.update((",".join(kind.packages) + "\n").encode())
    for name in sorted(closure(lock, kind.packages)):
        spec = lock.packages[name]
        digest.update(f"{name}={spec.file_name}={spec.sha256}\n".encode())
    return digest.hexdigest()[:16]


def build_package_snapshot(
    pyodide_dir: Path,
    runtime_dir: Path,
    lock: PyodideLockSpec,
    kernel_wheel: Path,
    cache_dir: Path,
    kind: SnapshotKind = PACKAGE_SNAPSHOT,
) -> PackageSnapshot | None:
    """The snapshot of this kind for this runtime (None when it does not ship all of its
    packages), made with Node only when none is cached. `runtime_dir` holds the shipped wheels
    and their lock."""
    if any(name not in lock.packages for name in kind.packages):
        return None
    folder = cache_dir / package_snapshot_key(lock, kernel_wheel, kind)
    made = PackageSnapshot(
        folder / kind.snapshot_file, folder / kind.record_file, folder / kind.bundle_file
    )
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
            ",".join(kind.packages),
            *map(str, (parts[0], parts[2], parts[1])),  # the script's order: bin, json, files
            *(["warm"] if kind.warm else []),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if done.returncode != 0 or not all(part.is_file() for part in parts):
        raise BuildError(f"Making {kind.snapshot_file} failed:\n{done.stderr[-2000:]}")
    # The record last: a cached record always has its snapshot and bundle beside it.
    for part, path in zip(parts, made.outputs(), strict=True):
        part.replace(path)
    return made


def read_record(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text())
    return record
