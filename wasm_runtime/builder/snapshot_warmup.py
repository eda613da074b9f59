"""Runs inside Pyodide (in Node, at build time) just before the start-up snapshot is taken.

Every module imported here is already in memory when a sandbox worker boots from the snapshot.
The kernel itself is imported from its wheel: compiling its source and importing what it needs
took about 360 ms of every worker's boot in Chromium. The modules Pyodide's package installer
uses are imported too; one this Pyodide does not ship is skipped rather than failing the build.
"""

from __future__ import annotations

import importlib
import sys

# What Pyodide's loadPackage runs to install a wheel.
INSTALLER_MODULES = (
    "importlib.metadata",
    "pyodide._package_loader",
    "shutil",
    "sysconfig",
    "tarfile",
    "zipfile",
)


def import_kernel(wheel: str) -> None:
    """Import the kernel from its wheel, which the worker mounts at the same path at boot (lazy
    imports such as its matplotlib backend read it then); see sandbox/runtime.ts."""
    sys.path.insert(0, wheel)
    importlib.import_module("wasmbox_kernel")


def warm_up() -> list[str]:
    """Import the installer's modules; return the names this Python does not have."""
    missing = []
    for name in INSTALLER_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing
