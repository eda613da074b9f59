"""The distribution's pyodide-lock.json: the official lock pruned to what is shipped, plus the
extras and the kernel added with the Pyodide tooling (`pyodide-lock`).

Pruning matters: a lock entry without its file would make `import x` try a download that 404s;
without the entry Python raises a plain ModuleNotFoundError that the kernel can explain.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from packaging.utils import canonicalize_name
from pyodide_lock import PyodideLockSpec
from pyodide_lock.spec import PackageSpec
from pyodide_lock.utils import add_wheels_to_spec

from wasm_runtime.builder import pins
from wasm_runtime.builder.errors import BuildError


def load_official_lock(node_modules: Path) -> PyodideLockSpec:
    path = node_modules / "pyodide" / "pyodide-lock.json"
    if not path.is_file():
        raise BuildError(
            f"{path} is missing: run `npm ci` first (the Pyodide core comes from npm)."
        )
    lock = PyodideLockSpec.from_json(path)
    if lock.info.version != pins.PYODIDE_VERSION:
        raise BuildError(
            f"node_modules has Pyodide {lock.info.version}, this build needs "
            f"{pins.PYODIDE_VERSION}: run `npm ci`."
        )
    return lock


def closure(lock: PyodideLockSpec, roots: Iterable[str]) -> set[str]:
    """The named packages and everything they depend on, by lock name."""
    seen: set[str] = set()
    pending: list[str] = [canonicalize_name(name) for name in roots]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        if name not in lock.packages:
            raise BuildError(f"Pyodide {pins.PYODIDE_VERSION} has no package named {name!r}.")
        seen.add(name)
        pending.extend(lock.packages[name].depends)
    return seen


def official_packages(
    lock: PyodideLockSpec, wanted: Iterable[str], replaced: set[str]
) -> dict[str, PackageSpec]:
    """Official packages to ship: the closure of `wanted`, minus those an extra replaces."""
    names = closure(lock, wanted) - replaced
    return {name: lock.packages[name] for name in sorted(names)}


def distribution_lock(
    lock: PyodideLockSpec, shipped: dict[str, PackageSpec], added_wheels: list[Path], base: Path
) -> PyodideLockSpec:
    """The lock the browser reads: the shipped official entries plus `added_wheels` (in `base`)."""
    pruned = lock.model_copy(update={"packages": dict(shipped)}, deep=True)
    try:
        return add_wheels_to_spec(pruned, added_wheels, base_path=base)
    except RuntimeError as exc:  # pyodide-lock reports unmet dependencies this way
        raise BuildError(f"Adding the extra wheels to the lock failed: {exc}") from exc
