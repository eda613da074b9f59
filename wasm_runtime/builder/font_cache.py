"""matplotlib's font cache, made at build time and shipped inside the matplotlib wheel.

Pyodide 0.27.7's matplotlib wheel ships `matplotlib/fontlist.json` stamped `_version` 390 while
its `font_manager` expects 330, so every sandbox's first `import matplotlib.pyplot` threw it away
and rebuilt it: 3-4 s parsing every bundled font, and "Matplotlib is building the font cache; this
may take a moment." on stderr, where the model and the page read it. The build makes the cache
with that same matplotlib in Node (make_font_cache.mjs) and puts it in the wheel in place of the
stale one. Cached under a key of the wheel, the script and the core.
"""

from __future__ import annotations

from pathlib import Path

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.wheel_edit import edit_key, edited_wheel, replace_entry, run_node

SCRIPT = Path(__file__).with_name("make_font_cache.mjs")
ENTRY = "matplotlib/fontlist.json"


def font_cache_key(wheel: Path) -> str:
    return edit_key(wheel, SCRIPT, Path(__file__))


def with_font_cache(wheel: Path, official_dir: Path, pyodide_dir: Path, cache_dir: Path) -> Path:
    """`wheel` (matplotlib's, as shipped) with a font cache its matplotlib accepts; the
    official wheels in `official_dir` are what Node loads to make it."""

    def make(fontlist: Path) -> None:
        arguments = [str(pyodide_dir), str(official_dir), str(fontlist)]
        run_node(SCRIPT, arguments, "matplotlib's font cache")
        if not fontlist.is_file():
            raise BuildError("Making matplotlib's font cache wrote no file.")

    return edited_wheel(wheel, cache_dir, font_cache_key(wheel), ENTRY, make, replace_entry)
