"""Hooks that run right after a given module has executed, wherever its import came from.

A finder first on `sys.meta_path` hands the named modules' import to a loader that runs the
module as its own loader would, then the hook. The module ends up with its own loader again
(`__loader__`, `__spec__.loader`), so nothing outside the hook shows it was there.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

Hook = Callable[[ModuleType], None]

_HOOKS: dict[str, Hook] = {}


class _AfterImport(importlib.abc.MetaPathFinder):
    """Hands the import of a module in `_HOOKS` to a `_HookedLoader`."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        hook = _HOOKS.get(fullname)
        if hook is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _HookedLoader(spec.loader, hook)
                return spec
        return None


class _HookedLoader(importlib.abc.Loader):
    def __init__(self, loader: importlib.abc.Loader, hook: Hook) -> None:
        self._loader = loader
        self._hook = hook

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._hook(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_resource_reader, …
        return getattr(self._loader, name)


def after_import(hooks: Mapping[str, Hook]) -> None:
    """Run each hook right after its module executes, from now on (once per interpreter); a
    module already imported gets its hook now."""
    if not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())
    for name, hook in hooks.items():
        _HOOKS[name] = hook
        if name in sys.modules:
            hook(sys.modules[name])
