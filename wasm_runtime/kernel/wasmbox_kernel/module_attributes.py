"""Module attributes a session keeps beside its variables.

Two kinds live in modules rather than in the cells' namespace, so pickling the namespace alone
would lose them: attributes the cells assign on an imported module (`math.answer = 42`,
`helpers.limit += 1`, `del mod.name`), found in each cell's syntax tree, and the module-level
values of the session's own modules (a `helpers.py` among its files), whose functions may have
changed them (`helpers.cache[key] = value`). Both are saved by value and set again after the
modules are imported anew.
"""

from __future__ import annotations

import ast
import os
import sys
import types
from collections.abc import Iterable, Iterator, Mapping

Attribute = tuple[str, str]
"""(the module's name, the attribute's name)."""

# Modules whose attributes are never set again: the interpreter's (the kernel swaps `sys.stdout`
# and the recursion limit around each run itself; `sys.path` is a setting of its own) and the
# sandbox's machinery, which a new worker must get as it was built (`wasmbox`: the host's module).
_MACHINERY = ("sys", "wasmbox_kernel", "wasmbox", "pyodide", "_pyodide", "js", "pyodide_js")


def _kept(module: str) -> bool:
    return module != "__main__" and not any(
        module == name or module.startswith(name + ".") for name in _MACHINERY
    )


def assigned_paths(tree: ast.Module) -> list[tuple[tuple[str, ...], str]]:
    """Each `a.b.c = ...`, `a.b.c += ...` or `del a.b.c` target of the cell: (("a", "b"), "c").
    Only chains of plain names: `obj().x` or `self.x` cannot name a module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            owner: list[str] = []
            value = node.value
            while isinstance(value, ast.Attribute):
                owner.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name):
                found.append(((value.id, *reversed(owner)), node.attr))
    return found


def module_attributes(
    paths: Iterable[tuple[tuple[str, ...], str]], namespace: Mapping[str, object]
) -> Iterator[Attribute]:
    """The targets whose owner is a module, resolved in the namespace through module
    dictionaries only (no `getattr`: a property or a module's `__getattr__` could run code)."""
    for (root, *rest), attribute in paths:
        owner = namespace.get(root)
        for part in rest:
            if not isinstance(owner, types.ModuleType):
                break
            owner = vars(owner).get(part)
        if isinstance(owner, types.ModuleType) and _kept(owner.__name__):
            yield owner.__name__, attribute


def own_modules(directory: str) -> list[types.ModuleType]:
    """The modules imported from files under `directory` (the session's own code)."""
    # Imports from the working directory name their files by its absolute path: a prefix test
    # per module, not a realpath (a file system lookup per path component, ~1,000 modules a save).
    root = os.path.join(os.path.realpath(directory), "")
    found = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name != "__main__" and isinstance(path, str) and path.startswith(root):
            found.append(module)
    return found


def module_values(module: types.ModuleType) -> Iterator[Attribute]:
    """A module's own values: not what importing it makes again (its functions, classes and
    the modules it imports), nor dunders."""
    for name, value in vars(module).items():
        if name.startswith("__") and name.endswith("__"):
            continue
        if isinstance(value, types.ModuleType):
            continue
        if isinstance(value, type | types.FunctionType) and value.__module__ == module.__name__:
            continue
        yield module.__name__, name
