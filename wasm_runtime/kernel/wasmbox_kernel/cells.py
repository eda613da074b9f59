"""Turning cell source into code objects, IPython style.

The last expression statement is compiled separately (mode "eval") so its value can be shown;
a trailing `;` suppresses it. Top-level `await` is allowed. The source is registered with
`linecache` under the cell's file name (`<cell-N>`) so tracebacks show the line.
"""

from __future__ import annotations

import ast
import inspect
import linecache
from collections.abc import Sequence
from dataclasses import dataclass
from types import CodeType

_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
# Cells kept compiled, and the longest source kept: a program's repeated calls are short.
KEPT_CELLS = 64
KEPT_SOURCE_CHARS = 20_000

AssignedPaths = Sequence[tuple[tuple[str, ...], str]]


@dataclass(frozen=True)
class CompiledCell:
    filename: str
    body: CodeType
    last: CodeType | None
    """The trailing expression whose value is the cell's value, if there is one."""

    @property
    def awaits(self) -> bool:
        """Whether the cell uses top-level `await` (so running it may wait)."""
        flags = self.body.co_flags | (self.last.co_flags if self.last is not None else 0)
        return bool(flags & inspect.CO_COROUTINE)


class CompiledCells:
    """The last KEPT_CELLS sources that compiled and passed the policy, with their code and the
    module attributes they assign (module_attributes.assigned_paths): a source run again is
    given its code under its new file name without being parsed, checked and compiled again,
    a large share of a short cell's time. The policy is the kernel's, fixed at its start."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[CompiledCell, AssignedPaths]] = {}

    def get(self, source: str, filename: str) -> tuple[CompiledCell, AssignedPaths] | None:
        kept = self._kept.pop(source, None)
        if kept is None:
            return None
        self._kept[source] = kept  # the most recently used last
        register_source(source, filename)
        cell, assigned = kept
        last = _renamed(cell.last, filename) if cell.last is not None else None
        return CompiledCell(filename, _renamed(cell.body, filename), last), assigned

    def keep(self, source: str, cell: CompiledCell, assigned: AssignedPaths) -> None:
        if len(source) > KEPT_SOURCE_CHARS:
            return
        self._kept[source] = (cell, assigned)
        if len(self._kept) > KEPT_CELLS:
            del self._kept[next(iter(self._kept))]


def _renamed(code: CodeType, filename: str) -> CodeType:
    """`code` and the code it holds (functions, classes, lambdas) under another file name."""
    consts = tuple(
        _renamed(const, filename) if isinstance(const, CodeType) else const
        for const in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


def parse_cell(source: str, filename: str) -> ast.Module:
    """Parse the cell (raises SyntaxError naming `filename` and the line)."""
    register_source(source, filename)
    return ast.parse(source, filename=filename, mode="exec")


def compile_cell(tree: ast.Module, source: str, filename: str) -> CompiledCell:
    statements = list(tree.body)
    last: ast.expr | None = None
    if statements and isinstance(statements[-1], ast.Expr):
        final = statements[-1]
        if not _suppressed(source, final):
            last = final.value
            statements.pop()
    module = ast.Module(body=statements, type_ignores=[])
    body = compile(module, filename, "exec", flags=_FLAGS, dont_inherit=True)
    if last is None:
        return CompiledCell(filename, body, None)
    expression = compile(
        ast.Expression(body=last), filename, "eval", flags=_FLAGS, dont_inherit=True
    )
    return CompiledCell(filename, body, expression)


async def evaluate(code: CodeType, namespace: dict[str, object]) -> object:
    """Run one code object in `namespace`, awaiting it when it uses top-level await."""
    result = eval(code, namespace)  # noqa: S307 (running the user's cell is the point)
    if code.co_flags & inspect.CO_COROUTINE:
        result = await result
    return result


def register_source(source: str, filename: str) -> None:
    """Make `linecache` (and so tracebacks) know the cell's lines."""
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)


def _suppressed(source: str, node: ast.Expr) -> bool:
    """True when the statement is followed by `;` (IPython's way to hide the value)."""
    if node.end_lineno is None or node.end_col_offset is None:
        return False
    lines = source.splitlines(keepends=True)
    line = lines[node.end_lineno - 1].encode("utf-8", "surrogatepass")
    rest = line[node.end_col_offset :].decode("utf-8", "replace")
    rest += "".join(lines[node.end_lineno :])
    return rest.lstrip(" \t\r\n\\)").startswith(";")
