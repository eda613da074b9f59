"""Imports go one way: the backend and the Python client never import each other.

Only the `wasmbox` command (wasm_runtime/cli.py) and the client's page server
(wasm_runtime/client_page.py) compose the two; the client finds that page server through the
`wasmbox.page_app` entry point.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from wasm_runtime.paths import REPO_ROOT

BACKEND = REPO_ROOT / "backend"
CLIENT = REPO_ROOT / "wasm_runtime" / "client" / "wasmbox"


def imported_modules(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, module) for every absolute import, wherever it is (top level, in a function, under
    TYPE_CHECKING), and every module named in a string to import_module or as uvicorn's
    "module:attr"."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
        elif isinstance(node, ast.Call) and call_name(node.func) in DYNAMIC_IMPORTS and node.args:
            if isinstance(arg := node.args[0], ast.Constant) and isinstance(arg.value, str):
                yield node.lineno, arg.value
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and FACTORY_STRING.fullmatch(node.value)  # "module:attr", as uvicorn takes an app
        ):
            yield node.lineno, node.value.split(":")[0]


DYNAMIC_IMPORTS = {"import_module", "__import__", "find_spec"}
FACTORY_STRING = re.compile(r"[a-z_]+(\.[a-z_]+)*:[A-Za-z_]+")


def call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def crossings(root: Path, forbidden: str) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, module in imported_modules(tree):
            if module == forbidden or module.startswith(forbidden + "."):
                found.append(f"{path.relative_to(REPO_ROOT)}:{line} imports {module}")
    return found


@pytest.mark.parametrize(
    ("root", "forbidden"),
    [
        pytest.param(BACKEND, "wasmbox", id="backend-never-imports-the-client"),
        pytest.param(CLIENT, "backend", id="client-never-imports-the-backend"),
    ],
)
def test_no_import_crosses(root: Path, forbidden: str) -> None:
    assert list(root.rglob("*.py")), f"no Python modules under {root}"
    assert crossings(root, forbidden) == []


def test_the_walk_sees_every_kind_of_import() -> None:
    source = (
        "import backend.app\n"
        "from backend.settings import Settings\n"
        "def f():\n    from backend import static\n"
        "APP = 'backend.app:create_app'\n"
        "importlib.import_module('backend.static')\n"
        "log = logging.getLogger('backend.proxy')\n"
        "from . import sibling\n"
    )
    assert [module for _, module in imported_modules(ast.parse(source))] == [
        "backend.app",
        "backend.settings",
        "backend",
        "backend.app",
        "backend.static",
    ]


def test_the_client_finds_the_page_server_the_command_composes() -> None:
    from wasm_runtime.client_page import client_page_app
    from wasmbox.server import installed_page_app

    assert installed_page_app() is client_page_app
