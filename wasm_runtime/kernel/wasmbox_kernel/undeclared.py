"""Runtime packages that a library imports when used, without declaring them as requirements.

Pyodide loads a cell's packages from the cell's own import statements and their declared
requirements. A package that a library imports only once it is used is then missing in a session
that has not imported it yet: `plotly.express` builds its figures with numpy and pandas, which
plotly does not require, so `px.scatter(x=[...], y=[...])` in a new sandbox failed with "Plotly
Express requires numpy to be installed". The worker loads what this module names for a cell
before running it.
"""

from __future__ import annotations

import ast

# By the module a cell imports: the runtime packages it needs when used. plotly checks for them once
# and remembers a miss for the session, so loading them after a failed import would not help.
UNDECLARED = {
    "plotly.express": ("numpy", "pandas"),
    "plotly.figure_factory": ("numpy", "pandas"),  # pandas: the factories it offers only with it
}
# A cell that names none of these (by the first part of the module's name) is not parsed. Python
# folds identifiers to NFKC (a fullwidth "ｐlotly" is plotly), so only an ASCII cell is skipped.
_TOP_NAMES = frozenset(module.partition(".")[0] for module in UNDECLARED)


def undeclared_packages(code: str) -> list[str]:
    """The packages the modules `code` imports need beyond their requirements, in order."""
    if code.isascii() and not any(name in code for name in _TOP_NAMES):
        return []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []  # the run itself reports it
    needed: dict[str, None] = {}
    for module in _imported_modules(tree):
        for package in UNDECLARED.get(module, ()):
            needed[package] = None
    return list(needed)


def _imported_modules(tree: ast.AST) -> set[str]:
    """Every module an import statement names, with the ones `from a import b` may mean (a.b)."""
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules
