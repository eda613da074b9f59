"""matplotlib's per-class `set()` signatures and docstrings, recorded at build time and shipped
inside the matplotlib wheel (`matplotlib/_wasmbox_artist_set.json`).

Every sandbox that imports matplotlib spent about 0.4 CPU-s of `import matplotlib.pyplot`
inspecting each Artist subclass's setters to write that text. The build imports every module of
matplotlib and mpl_toolkits in Node with the kernel's `Recorder` watching (make_artist_set.mjs,
record_artist_set.py); the kernel then takes each class's text from the table while what it was
made from still holds (wasm_runtime/kernel/wasmbox_kernel/_patches/artist_set.py). Cached under a
key of the wheel, the scripts, the kernel module and the core.
"""

from __future__ import annotations

from pathlib import Path

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.wheel_edit import edit_key, edited_wheel, run_node
from wasm_runtime.paths import KERNEL_SRC

SCRIPT = Path(__file__).with_name("make_artist_set.mjs")
IMPORTS = Path(__file__).with_name("record_artist_set.py")
RECORDER = KERNEL_SRC / "wasmbox_kernel/_patches/artist_set.py"
ENTRY = "matplotlib/_wasmbox_artist_set.json"


def artist_set_key(wheel: Path) -> str:
    return edit_key(wheel, SCRIPT, IMPORTS, Path(__file__), RECORDER)


def with_artist_set_table(
    wheel: Path, official_dir: Path, pyodide_dir: Path, cache_dir: Path
) -> Path:
    """`wheel` (matplotlib's, as shipped) with the table of its classes' `set`; the official
    wheels in `official_dir` are what Node loads to make it."""

    def make(table: Path) -> None:
        arguments = [str(pyodide_dir), str(official_dir), str(RECORDER), str(table)]
        run_node(SCRIPT, arguments, "the table of matplotlib's set() docstrings")
        if not table.is_file():
            raise BuildError("Making the table of matplotlib's set() docstrings wrote no file.")

    return edited_wheel(wheel, cache_dir, artist_set_key(wheel), ENTRY, make)
