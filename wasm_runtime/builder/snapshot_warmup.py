"""Runs inside Pyodide (in Node, at build time) just before the start-up snapshot is taken.

Every module imported here is already in memory when a sandbox worker boots from the snapshot, so
installing the kernel wheel and importing the kernel skip dozens of cold imports from the zipped
standard library (measured in Node: install 370 → 130 ms, kernel import 150 → 50 ms). List the
standard-library modules the kernel imports and those Pyodide's package installer uses; a module
this Pyodide does not ship is skipped rather than failing the build.
"""

from __future__ import annotations

import importlib

# What `wasmbox_kernel` imports (tests/runtime checks this stays complete).
KERNEL_MODULES = (
    "ast",
    "asyncio",
    "base64",
    "builtins",
    "collections.abc",
    "contextlib",
    "contextvars",
    "dataclasses",
    "hashlib",
    "importlib",
    "inspect",
    "io",
    "json",
    "linecache",
    "mimetypes",
    "os",
    "platform",
    "random",
    "sys",
    "tempfile",
    "time",
    "traceback",
    "types",
    "typing",
)
# What Pyodide's loadPackage runs to install a wheel.
INSTALLER_MODULES = (
    "importlib.metadata",
    "pyodide._package_loader",
    "shutil",
    "sysconfig",
    "tarfile",
    "zipfile",
)


def warm_up() -> list[str]:
    """Import every module above; return the names this Python does not have."""
    missing = []
    for name in (*KERNEL_MODULES, *INSTALLER_MODULES):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing
