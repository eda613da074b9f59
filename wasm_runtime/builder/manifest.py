"""manifest.json: every file of the runtime with its size and sha256, and what the packages are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pyodide_lock import PyodideLockSpec

from wasm_runtime.builder import pins
from wasm_runtime.builder.fsutil import write_if_changed
from wasm_runtime.builder.snapshot import SNAPSHOT_FILE

MANIFEST = "manifest.json"


def write_manifest(
    out_dir: Path,
    files: dict[str, dict[str, Any]],
    lock: PyodideLockSpec,
    origins: dict[str, str],
    package_snapshot: dict[str, Any] | None = None,
    plot_snapshot: dict[str, Any] | None = None,
) -> Path:
    """`package_snapshot`, `plot_snapshot`: each one's file, its link record, its files bundle
    and the packages it holds, if built."""
    packages = {
        name: {
            "version": spec.version,
            "file": spec.file_name,
            "imports": spec.imports,
            "depends": spec.depends,
            "origin": origins.get(name, "official"),
        }
        for name, spec in sorted(lock.packages.items())
    }
    manifest = {
        "format": 1,
        "pyodide": pins.PYODIDE_VERSION,
        "python": lock.info.python,
        "files": dict(sorted(files.items())),
        "snapshot": SNAPSHOT_FILE if SNAPSHOT_FILE in files else None,
        "packageSnapshot": package_snapshot,
        "plotSnapshot": plot_snapshot,
        "packages": packages,
    }
    path = out_dir / MANIFEST
    write_if_changed(path, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
    return path


def read_manifest(out_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out_dir / MANIFEST).read_text())
    return data
