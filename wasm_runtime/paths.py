"""Where the build reads from and writes to. One place, so the backend and the builder agree."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
BUILD_DIR = REPO_ROOT / "build"
RUNTIME_DIR = BUILD_DIR / "runtime"
JS_DIR = BUILD_DIR / "js"
NODE_MODULES = REPO_ROOT / "node_modules"
KERNEL_SRC = Path(__file__).resolve().parent / "kernel"
PROTOCOL_DIR = Path(__file__).resolve().parent / "protocol"
"""The tables both runtimes share (limits.json, mime.json); the kernel's wheel carries a copy."""


def default_cache_dir() -> Path:
    """`$WASMBOX_CACHE_DIR`, else `$XDG_CACHE_HOME/wasmbox`, else `~/.cache/wasmbox`."""
    if explicit := os.environ.get("WASMBOX_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "wasmbox"
