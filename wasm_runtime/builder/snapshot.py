"""A memory snapshot of a freshly started interpreter, made with Node at build time.

Loading it (`loadPyodide({_loadSnapshot})`) skips CPython's start-up. What a snapshot freezes is
shared by every sandbox that loads it: the str hash seed, and the state of `random` (already
imported at start-up), so whoever loads it must call `random.seed()` before user code runs.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

from wasm_runtime.builder import pins
from wasm_runtime.builder.errors import BuildError

SCRIPT = Path(__file__).with_name("make_snapshot.mjs")
WARM_BOOT = Path(__file__).with_name("warm_boot.mjs")
WARMUP = Path(__file__).with_name("snapshot_warmup.py")
# Where the kernel's wheel is mounted: the worker mounts it at the same path.
KERNEL_MOUNT = Path(__file__).parent.parent / "protocol" / "kernel-mount.mjs"
SNAPSHOT_FILE = "snapshot.bin"


def snapshot_key(kernel_wheel: Path) -> str:
    """Changes whenever the core files, the kernel or the scripts that make the snapshot change."""
    digest = hashlib.sha256(
        SCRIPT.read_bytes()
        + WARM_BOOT.read_bytes()
        + WARMUP.read_bytes()
        + KERNEL_MOUNT.read_bytes()
        + kernel_wheel.read_bytes()
    )
    digest.update(kernel_wheel.name.encode())  # the worker mounts it by name
    for name, sha256 in sorted(pins.CORE_FILES.items()):
        digest.update(f"{name}={sha256}\n".encode())
    return digest.hexdigest()[:16]


def build_snapshot(pyodide_dir: Path, kernel_wheel: Path, cache_dir: Path) -> Path:
    """The snapshot for this core and kernel, made with Node only when none is cached."""
    cached = cache_dir / snapshot_key(kernel_wheel) / SNAPSHOT_FILE
    if cached.is_file():
        return cached
    node = shutil.which("node")
    if node is None:
        raise BuildError(
            "Node.js is needed to make the start-up snapshot: install Node 20 or newer."
        )
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(SNAPSHOT_FILE + ".part")
    done = subprocess.run(  # noqa: S603 - fixed script, paths we made
        [node, str(SCRIPT), str(pyodide_dir), str(kernel_wheel), str(partial)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if done.returncode != 0 or not partial.is_file():
        raise BuildError(f"Making the start-up snapshot failed:\n{done.stderr[-2000:]}")
    partial.replace(cached)
    return cached
