"""A file the build makes in Node with the real Pyodide and puts in a shipped wheel: a new entry
(artist_set.py) or in place of one (font_cache.py).

The edited wheel is cached under a key of its inputs; older keys of the same wheel are removed.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from wasm_runtime.builder import pins
from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.hashing import sha256_file


def edit_key(wheel: Path, *sources: Path) -> str:
    """A key of what an edit is made from: the wheel, the sources that make it (this file
    too), and the Pyodide core that runs them."""
    digest = hashlib.sha256()
    for source in (*sources, Path(__file__)):
        digest.update(source.read_bytes())
    digest.update(sha256_file(wheel).encode())
    for name, sha256 in sorted(pins.CORE_FILES.items()):
        digest.update(f"{name}={sha256}\n".encode())
    return digest.hexdigest()[:16]


Write = Callable[[Path, Path, str, bytes], None]


def edited_wheel(
    wheel: Path,
    cache_dir: Path,
    key: str,
    entry: str,
    make: Callable[[Path], None],
    write: Write | None = None,
) -> Path:
    """`wheel` with the entry `entry` holding what `make(path)` writes to `path`, cached under
    `cache_dir/key`; `write` puts it in the wheel (default `add_entry`)."""
    target = cache_dir / key / wheel.name
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="wasmbox-wheel-") as work:
        made = Path(work, Path(entry).name)
        make(made)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        (write or add_entry)(wheel, partial, entry, made.read_bytes())
        partial.replace(target)
    for older in target.parent.parent.glob(f"*/{target.name}"):
        if older != target:
            shutil.rmtree(older.parent, ignore_errors=True)
    return target


def add_entry(source: Path, target: Path, name: str, data: bytes) -> None:
    """Copy the wheel `source` to `target` with a new entry `name` holding `data`, listed in
    RECORD without a hash (so uninstalling the package removes it too)."""
    with zipfile.ZipFile(source) as wheel, zipfile.ZipFile(target, "w") as out:
        if name in wheel.namelist():
            raise BuildError(f"{source.name} already has a {name}")
        records = [info for info in wheel.infolist() if info.filename.endswith(".dist-info/RECORD")]
        if len(records) != 1:
            raise BuildError(f"{source.name} has no single .dist-info/RECORD to list {name} in")
        for info in wheel.infolist():
            content = wheel.read(info)
            if info is records[0]:
                content = content.rstrip(b"\n") + f"\n{name},,\n".encode()
            out.writestr(info, content)
        added = zipfile.ZipInfo(name, date_time=records[0].date_time)
        added.external_attr = 0o644 << 16  # rw-r--r--, as the wheel's other files
        out.writestr(added, data, zipfile.ZIP_DEFLATED)


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


def run_node(script: Path, arguments: list[str], what: str) -> None:
    """Run a build script in Node; `what` names the job in the errors."""
    node = shutil.which("node")
    if node is None:
        raise BuildError(f"Node.js is needed to make {what}: install Node 20+.")
    done = subprocess.run(  # noqa: S603 - fixed script, paths we made
        [node, str(script), *arguments], capture_output=True, text=True, check=False, timeout=900
    )
    if done.returncode != 0:
        raise BuildError(f"Making {what} failed:\n{done.stderr[-2000:]}")
