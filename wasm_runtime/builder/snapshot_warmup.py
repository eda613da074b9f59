"""Runs inside Pyodide (in Node, at build time) just before the start-up snapshot is taken.

Every module imported here is already in memory when a sandbox worker boots from the snapshot.
The kernel itself is imported from its wheel: compiling its source and importing what it needs
took about 360 ms of every worker's boot in Chromium. The modules Pyodide's package installer
uses are imported too, and the standard library modules that numpy, pandas and matplotlib, or
code written by a model, commonly import: Pyodide's standard library is source only, so each of
them was compiled at its first import in every sandbox. One this Pyodide does not ship is skipped
rather than failing the build. Modules whose import fixes per-process state are left out
(tempfile's name sequence, for one): a snapshot's state is shared by every sandbox.
"""

from __future__ import annotations

import importlib
import sys

# What Pyodide's loadPackage runs to install a wheel.
INSTALLER_MODULES = (
    "encodings.cp437",  # zipfile decodes the names in a wheel with it
    "importlib.metadata",
    "pyodide._package_loader",
    "shutil",
    "sysconfig",
    "tarfile",
    "zipfile",
)
# Found by listing what `import numpy, pandas, matplotlib.pyplot` adds to sys.modules from the
# standard library after a boot from the snapshot, plus what analysis code imports most.
COMMON_MODULES = (
    "_strptime",
    "decimal",
    "difflib",
    "fractions",
    "glob",
    "gzip",
    "hmac",
    "html",
    "numbers",
    "pickle",
    "pkgutil",
    "pprint",
    "secrets",
    "shlex",
    "statistics",
    "uuid",
    "zoneinfo",
)


def import_kernel(wheel: str) -> None:
    """Import the kernel from its wheel, which the worker mounts at the same path at boot (lazy
    imports such as its matplotlib backend read it then); see protocol/kernel-mount.mjs."""
    sys.path.insert(0, wheel)
    importlib.import_module("wasmbox_kernel")


def warm_up() -> list[str]:
    """Import the installer's and the common modules; return the names this Python lacks."""
    missing = []
    for name in (*INSTALLER_MODULES, *COMMON_MODULES):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing
