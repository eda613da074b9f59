"""The snapshot's warm-up: the installer's modules import, and the kernel imports from its wheel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from wasm_runtime.builder import snapshot_warmup
from wasm_runtime.builder.kernel_wheel import build_kernel_wheel
from wasm_runtime.paths import KERNEL_SRC


def test_every_installer_module_imports_on_cpython_too() -> None:
    assert snapshot_warmup.warm_up() == ["pyodide._package_loader"]  # Pyodide's own


def test_the_kernel_is_imported_from_its_wheel(tmp_path: Path) -> None:
    """As make_snapshot.mjs runs it: the script's source in a namespace, then `import_kernel`.
    `-I` keeps the source tree off sys.path, so only the wheel can provide the kernel."""
    wheel = build_kernel_wheel(KERNEL_SRC, tmp_path)
    script = (
        f"namespace = {{}}\n"
        f"exec(open({snapshot_warmup.__file__!r}).read(), namespace)\n"
        f"namespace['import_kernel']({str(wheel)!r})\n"
        "import wasmbox_kernel\n"
        "print(wasmbox_kernel.Kernel.__module__, wasmbox_kernel.__file__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["wasmbox_kernel.kernel", f"{wheel}/wasmbox_kernel/__init__.py"]
