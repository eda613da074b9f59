"""Turning cell source into code objects, IPython style.

The last expression statement is compiled separately (mode "eval") so its value can be shown;
a trailing `;` suppresses it. Top-level `await` is allowed. The source is registered with
`linecache` under the cell's file name (`<cell-N>`) so tracebacks show the line.
"""

from __future__ import annotations

import ast
import inspect
import linecache
from dataclasses import dataclass
from types import CodeType

_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


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
