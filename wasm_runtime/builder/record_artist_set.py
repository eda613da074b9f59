"""Imports all of matplotlib as a sandbox might, and describes each Artist subclass's `set()`.

Standalone (no wasm_runtime imports): make_artist_set.mjs runs it in Pyodide while the kernel's
`Recorder` watches, and the kernel's tests run it in CPython to compare matplotlib's own text
with the table's.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import pkgutil
import sys
from typing import Any

PACKAGES = ("matplotlib", "mpl_toolkits")


def import_all() -> list[str]:
    """pyplot first, as a session imports it, then every other module of PACKAGES that imports
    here (backends for GUI toolkits that are missing do not), test suites aside; returns those
    that did not."""
    os.environ.setdefault("MPLBACKEND", "agg")
    importlib.import_module("matplotlib.pyplot")
    failed: list[str] = []
    pending = [importlib.import_module(name) for name in PACKAGES]
    while pending:
        package = pending.pop(0)
        for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if module.name.rpartition(".")[2] in ("tests", "testing"):
                continue
            try:
                imported = importlib.import_module(module.name)
            except Exception:
                failed.append(module.name)
                continue
            if module.ispkg:
                pending.append(imported)
    return failed


def artist_classes() -> list[type]:
    """Every Artist subclass defined so far, in the order they were made, each once."""
    artist: Any = importlib.import_module("matplotlib.artist").Artist
    found: dict[type, None] = {}
    pending = [artist]
    while pending:
        for subclass in pending.pop(0).__subclasses__():
            if subclass not in found:
                found[subclass] = None
                pending.append(subclass)
    return list(found)


def describe_classes() -> dict[str, list[Any]]:
    """Per class (module:qualname, numbered when two share a name): what `set` shows, as
    `help()` and `inspect` see it."""
    artist: Any = importlib.import_module("matplotlib.artist").Artist
    unset = list(inspect.signature(artist.set).parameters.values())[1].default
    described: dict[str, list[Any]] = {}
    classes: list[Any] = artist_classes()
    for cls in classes:
        key = f"{cls.__module__}:{cls.__qualname__}"
        number = sum(1 for name in described if name.split("#")[0] == key)
        method: Any = cls.set
        signature = inspect.signature(method)
        defaults = [p.default is unset for p in list(signature.parameters.values())[1:]]
        described[f"{key}#{number}"] = [
            str(signature),
            [(p.name, p.kind.name) for p in signature.parameters.values()],
            all(defaults),
            method.__doc__,
            list(vars(method)),
            method.__qualname__,
        ]
    return described


def describe_docstrings() -> dict[str, Any]:
    """The docstrings of PACKAGES as imported: a digest of every module's, class's and
    function's (and each class's methods' and properties'), and the `%(...)s` substitutions
    matplotlib filled them from, each `kwdoc` text in full."""
    digest = hashlib.sha256()
    for name in sorted(sys.modules):
        module = sys.modules[name]
        if module is None or name.split(".")[0] not in PACKAGES:
            continue
        digest.update(f"{name}\0{module.__doc__}\0".encode())
        for attribute, value in sorted(vars(module).items()):
            if getattr(value, "__module__", None) != name:
                continue
            digest.update(f"{attribute}\0{getattr(value, '__doc__', None)}\0".encode())
            if isinstance(value, type):
                for member, item in sorted(vars(value).items()):
                    digest.update(f"{member}\0{getattr(item, '__doc__', None)}\0".encode())
    params = importlib.import_module("matplotlib._docstring").interpd.params
    return {"digest": digest.hexdigest(), "substitutions": {k: str(v) for k, v in params.items()}}
