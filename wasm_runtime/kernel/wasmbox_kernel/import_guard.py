"""The policy while the cell runs: wrappers around the import entry points, for one run only.

`builtins.__import__` sees `import x`, `from x import y`, `__import__("x")` and `exec("import x")`;
`importlib.import_module` and `importlib.__import__` are wrapped too. Only imports asked for by
the user's code are checked (the importer's globals belong to no imported module: the cell
namespace, an `exec` dict, or none at all), so libraries keep importing what they need, such as
numpy's optional `ctypes`. Blocked imports raise `PolicyViolation` (an ImportError) and are
recorded on the run even when the code catches the error.
"""

from __future__ import annotations

import builtins
import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from types import FrameType, ModuleType, TracebackType
from typing import Any

from .policy import Policy, PolicyViolation, Violation

ImportFunction = Callable[..., ModuleType]


class ImportGuard:
    def __init__(
        self, policy: Policy, record: Callable[[Violation], None], cell_prefix: str
    ) -> None:
        self._policy = policy
        self._record = record
        self._cell_marker = f"<{cell_prefix}-"
        self._saved: list[tuple[object, str, ImportFunction]] = []

    def __enter__(self) -> ImportGuard:
        self._replace(builtins, "__import__", self._wrap_dunder)
        self._replace(importlib, "__import__", self._wrap_dunder)
        self._replace(importlib, "import_module", self._wrap_import_module)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        while self._saved:
            owner, name, original = self._saved.pop()
            setattr(owner, name, original)

    def _replace(
        self, owner: object, name: str, wrap: Callable[[ImportFunction], ImportFunction]
    ) -> None:
        original: ImportFunction = getattr(owner, name)
        self._saved.append((owner, name, original))
        setattr(owner, name, wrap(original))

    def _wrap_dunder(self, original: ImportFunction) -> ImportFunction:
        def guarded_import(
            name: str,
            globals: Mapping[str, object] | None = None,
            locals: Mapping[str, object] | None = None,
            fromlist: Sequence[str] | None = (),
            level: int = 0,
        ) -> ModuleType:
            if level == 0 and _asked_by_user(globals):
                self._check(name, fromlist or ())
            return original(name, globals, locals, fromlist, level)

        return guarded_import

    def _wrap_import_module(self, original: ImportFunction) -> ImportFunction:
        def guarded_import_module(name: str, package: str | None = None) -> ModuleType:
            if not name.startswith(".") and _asked_by_user(sys._getframe(1).f_globals):
                self._check(name, ())
            return original(name, package)

        return guarded_import_module

    def _check(self, name: object, fromlist: Sequence[Any]) -> None:
        if not isinstance(name, str):
            return  # the real import reports the type error
        names = [item for item in fromlist if isinstance(item, str)]
        violation = self._policy.check_import(name, names, self._cell_line())
        if violation is not None:
            self._record(violation)
            raise PolicyViolation(violation)

    def _cell_line(self) -> int | None:
        frame: FrameType | None = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename.startswith(self._cell_marker):
                return frame.f_lineno
            frame = frame.f_back
        return None


def _asked_by_user(importer_globals: Mapping[str, object] | None) -> bool:
    """True unless the importer is a module that was itself imported: its globals are the dict
    of the module its `__spec__` names (a `__spec__` put in an `exec` dict is not enough).

    Advisory all the same: code set on it can run an import in a library module's own globals.
    The browser (an opaque-origin frame whose CSP allows no network) is the boundary."""
    if importer_globals is None:
        return True
    spec = importer_globals.get("__spec__")
    if spec is None:
        return True
    try:
        module = sys.modules.get(spec.name)  # type: ignore[attr-defined]
    except Exception:  # a forged spec without a usable name
        return True
    return getattr(module, "__dict__", None) is not importer_globals
