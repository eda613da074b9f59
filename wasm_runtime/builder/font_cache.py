"""matplotlib's font cache, made at build time and shipped inside the matplotlib wheel.

Pyodide 0.27.7's matplotlib wheel ships `matplotlib/fontlist.json` stamped `_version` 390 while
its `font_manager` expects 330, so every sandbox's first `import matplotlib.pyplot` threw it away
and rebuilt it: 3-4 s parsing every bundled font, and "Matplotlib is building the font cache; this
may take a moment." on stderr, where the model and the page read it. The build makes the cache
with that same matplotlib in Node (make_font_cache.mjs) and puts it in the wheel in place of the
stale one. Cached under a key of the wheel, the script and the core.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from wasm_runtime.builder import pins
from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.hashing import sha256_file

SCRIPT = Path(__file__).with_name("make_font_cache.mjs")
ENTRY = "matplotlib/fontlist.json"


def font_cache_key(wheel: Path) -> str:
    digest = hashlib.sha256(SCRIPT.read_bytes() + Path(__file__).read_bytes())
    digest.update(sha256_file(wheel).encode())
    for name, sha256 in sorted(pins.CORE_FILES.items()):
        digest.update(f"{name}={sha256}\n".encode())
    return digest.hexdigest()[:16]


def with_font_cache(wheel: Path, official_dir: Path, pyodide_dir: Path, cache_dir: Path) -> Path:
    """`wheel` (matplotlib's, as shipped) with a font cache its matplotlib accepts; the
    official wheels in `official_dir` are what Node loads to make it."""
    target = cache_dir / font_cache_key(wheel) / wheel.name
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="wasmbox-fonts-") as work:
        fontlist = Path(work, "fontlist.json")
        _make(official_dir, pyodide_dir, fontlist)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        replace_entry(wheel, partial, ENTRY, fontlist.read_bytes())
        partial.replace(target)
    for older in target.parent.parent.glob(f"*/{target.name}"):
        if older != target:
            shutil.rmtree(older.parent, ignore_errors=True)
    return target


def replace_entry(source: Path, target: Path, name: str, data: bytes) -> None:
    """Copy the wheel `source` to `target` with entry `name` holding `data`; its RECORD line
    loses its hash, as the compiled bytecode's lines have none (wheel_bytecode.py)."""
    with zipfile.ZipFile(source) as wheel, zipfile.ZipFile(target, "w") as out:
        if name not in wheel.namelist():
            raise BuildError(f"{source.name} has no {name} to replace")
        for info in wheel.infolist():
            content = data if info.filename == name else wheel.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                lines = content.decode().splitlines()
                lines = [f"{name},," if line.startswith(f"{name},") else line for line in lines]
                content = ("\n".join(lines) + "\n").encode()
            out.writestr(info, content)


def _make(official_dir: Path, pyodide_dir: Path, output: Path) -> None:
    node = shutil.which("node")
    if node is None:
        raise BuildError("Node.js is needed to make matplotlib's font cache: install Node 20+.")
    done = subprocess.run(  # noqa: S603 - fixed script, paths we made
        [node, str(SCRIPT), str(pyodide_dir), str(official_dir), str(output)],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    if done.returncode != 0 or not output.is_file():
        raise BuildError(f"Making matplotlib's font cache failed:\n{done.stderr[-2000:]}")
