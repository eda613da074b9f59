"""The code policy: which modules user code may import, and how big a cell may be.

Defence in depth only. The boundary that holds is the browser's (an opaque-origin iframe, a
worker under a strict CSP, no secrets inside): from Python, JavaScript stays reachable in ways no
import rule can close (`sys.modules`, objects handed out by libraries, `to_js(...).constructor`).
The policy makes the obvious routes fail loudly and names them in the result, so a model that
tries them learns quickly; `"off"` disables every check.

Checks happen twice: on the syntax tree before the cell runs (`check_tree`, which also sees
`__import__("x")`, `importlib.import_module("x")` and `sys.modules["x"]` with literal names and
attribute chains like `pyodide.ffi.to_js`), and while it runs (`import_guard.ImportGuard`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from .result import PolicyInfo

DEFAULT_DENY = (
    "ctypes",  # reaches emscripten_run_script
    "_ctypes",
    "js",  # the JavaScript global scope
    "pyodide_js",  # the Pyodide JavaScript API
    "_pyodide",  # Pyodide internals
    "_pyodide_core",
    "pyodide.http",  # pyfetch / open_url
    "pyodide.ffi",  # to_js, create_proxy, JsProxy: handles on JavaScript objects
    "pyodide.code.run_js",
    "micropip",  # only with allow_install
)
DEFAULT_ALLOW = (
    "pyodide.ffi.run_sync",  # waits for a Python awaitable; hands out nothing from JavaScript
    "pyodide.ffi.can_run_sync",
    "pyodide.ffi.JsException",  # to catch errors, not to make them
)
DEFAULT_MAX_CODE_BYTES = 1_000_000
_POLICY_KEYS = frozenset({"allowModules", "denyModules", "maxCodeBytes"})
_IMPORT_CALLS = frozenset({"__import__", "import_module"})


@dataclass(frozen=True)
class Violation:
    rule: str
    line: int | None
    message: str

    def info(self) -> PolicyInfo:
        return PolicyInfo(rule=self.rule, line=self.line, message=self.message)


class PolicyViolation(ImportError):
    """Raised in the user's code when it imports a blocked module."""

    __module__ = "builtins"  # tracebacks then print "PolicyViolation: ..." like a built-in error

    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.message)
        self.violation = violation


@dataclass(frozen=True)
class Policy:
    deny: tuple[str, ...]
    allow: tuple[str, ...]
    max_code_bytes: int

    @classmethod
    def from_spec(cls, spec: object, *, allow_install: bool) -> Policy | None:
        """The policy for `KernelOptions.policy`; None means "off". Bad specs raise ValueError."""
        if spec == "off":
            return None
        deny = [name for name in DEFAULT_DENY if not (allow_install and name == "micropip")]
        if spec == "default":
            return cls(tuple(deny), DEFAULT_ALLOW, DEFAULT_MAX_CODE_BYTES)
        if not isinstance(spec, Mapping):
            raise ValueError(f'policy must be "default", "off" or a dict, got {spec!r}')
        unknown = sorted(set(spec) - _POLICY_KEYS)
        if unknown:
            raise ValueError(f"unknown policy key(s): {', '.join(map(str, unknown))}")
        allowed = _names(spec.get("allowModules", []), "allowModules")
        denied = _names(spec.get("denyModules", []), "denyModules")
        if both := sorted(set(allowed) & set(denied)):
            raise ValueError(f"module(s) both allowed and denied: {', '.join(both)}")
        max_bytes = spec.get("maxCodeBytes", DEFAULT_MAX_CODE_BYTES)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise ValueError(f"maxCodeBytes must be a positive integer, got {max_bytes!r}")
        deny = [name for name in deny if name not in allowed] + denied
        allow = [name for name in DEFAULT_ALLOW if name not in denied] + allowed
        return cls(tuple(deny), tuple(allow), max_bytes)

    def blocking_rule(self, module: str) -> str | None:
        """The deny entry that blocks `module` (a dotted name), or None when it is allowed."""
        denied = max((d for d in self.deny if _covers(d, module)), key=len, default=None)
        if denied is None:
            return None
        allowed = max((a for a in self.allow if _covers(a, module)), key=len, default="")
        return None if len(allowed) >= len(denied) else denied

    def check_import(
        self, name: str, fromlist: Iterable[str], line: int | None
    ) -> Violation | None:
        """Check `import name` / `from name import fromlist`."""
        targets = [f"{name}.{item}" for item in fromlist if item != "*"] or [name]
        for target in targets:
            rule = self.blocking_rule(target)
            if rule is not None:
                return Violation(
                    rule=f"module:{rule}",
                    line=line,
                    message=f"import of {target!r} is blocked by the sandbox policy "
                    f"(rule module:{rule})",
                )
        return None

    def check_size(self, code: str) -> Violation | None:
        """Refuse code over `max_code_bytes` (UTF-8), without encoding a giant string."""
        limit = self.max_code_bytes
        if len(code) > 4 * limit:  # a character is at most 4 bytes
            size = f"more than {4 * limit}"
        else:
            encoded = len(code.encode("utf-8", "surrogatepass"))
            if encoded <= limit:
                return None
            size = str(encoded)
        return Violation(
            rule="maxCodeBytes",
            line=None,
            message=f"the code is {size} bytes; the sandbox policy allows at most {limit} bytes",
        )

    def check_tree(self, tree: ast.Module) -> Violation | None:
        """The first blocked import the syntax tree shows, in source order."""
        for line, name, fromlist in sorted(_imports(tree), key=lambda item: item[0]):
            violation = self.check_import(name, fromlist, line)
            if violation is not None:
                return violation
        return None


def _names(value: object, key: str) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{key} must be a list of module names, got {value!r}")
    return list(value)


def _covers(entry: str, module: str) -> bool:
    return module == entry or module.startswith(entry + ".")


def _imports(tree: ast.Module) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """(line, module, fromlist) for each import the tree shows."""
    aliases: dict[str, str] = {}
    attributes: list[ast.Attribute] = []  # in walk order: one walk of the tree, not three
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            attributes.append(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    root = alias.name.partition(".")[0]
                    aliases[root] = root
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.lineno, node.module, tuple(a.name for a in node.names)
        elif isinstance(node, ast.Call):
            name = _literal_import_call(node)
            if name is not None:
                yield node.lineno, name, ()
        elif (
            isinstance(node, ast.Subscript)
            and _dotted(node.value) == "sys.modules"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            yield node.lineno, node.slice.value, ()
    if not aliases:
        return  # an attribute path can only lead to a module the cell imported
    inner = {id(n.value) for n in attributes}
    for node in attributes:
        if id(node) not in inner:
            dotted = _dotted(node)
            root, _, rest = (dotted or "").partition(".")
            if root in aliases and rest:
                yield node.lineno, f"{aliases[root]}.{rest}", ()


def _literal_import_call(node: ast.Call) -> str | None:
    function = node.func
    called = function.attr if isinstance(function, ast.Attribute) else None
    if isinstance(function, ast.Name):
        called = function.id
    if called not in _IMPORT_CALLS and not (
        called == "get"
        and isinstance(function, ast.Attribute)
        and _dotted(function.value) == "sys.modules"
    ):
        return None
    if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
