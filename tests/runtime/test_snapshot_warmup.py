"""The snapshot's warm-up list: importable, and covering every module the kernel imports."""

from __future__ import annotations

import ast

from wasm_runtime.builder.snapshot_warmup import KERNEL_MODULES, warm_up
from wasm_runtime.paths import KERNEL_SRC

NOT_STDLIB = {"wasmbox_kernel", "__future__", "pyodide", "js", "matplotlib", "pyodide_js"}


def kernel_imports() -> set[str]:
    names: set[str] = set()
    for path in (KERNEL_SRC / "wasmbox_kernel").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
    return {name for name in names if name.split(".")[0] not in NOT_STDLIB}


def test_every_module_imports_on_cpython_too() -> None:
    assert warm_up() == ["pyodide._package_loader"]  # Pyodide's own; absent from CPython


def test_covers_the_kernels_imports() -> None:
    imported = kernel_imports()
    assert {"ast", "asyncio", "linecache"} <= imported  # the scan itself found the kernel
    assert imported - set(KERNEL_MODULES) == set()
