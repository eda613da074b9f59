"""Wheels with their bytecode compiled at build time (see wheel_bytecode.py for why and how).

The compiling runs in Node with the Pyodide core, once for all the wheels not yet in the cache;
a compiled wheel is cached under a key of its source wheel, the scripts and the core, so a
rebuild compiles only what changed. The sources were verified against the official lock before
they got here; the compiled wheels are build output, with their own hashes in the
distribution's lock and manifest.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

from wasm_runtime.builder import pins
from wasm_runtime.builder.errors import BuildError
from wasm_runtime.builder.hashing import sha256_file

SCRIPT = Path(__file__).with_name("compile_wheels.mjs")
COMPILER = Path(__file__).with_name("wheel_bytecode.py")


def bytecode_key(wheel: Path) -> str:
    digest = hashlib.sha256(SCRIPT.read_bytes() + COMPILER.read_bytes())
    digest.update(sha256_file(wheel).encode())
    for name, sha256 in sorted(pins.CORE_FILES.items()):
        digest.update(f"{name}={sha256}\n".encode())
    return digest.hexdigest()[:16]


def with_bytecode(wheels: list[Path], pyodide_dir: Path, cache_dir: Path) -> dict[Path, Path]:
    """Each wheel → its compiled copy (same file name), compiling those not cached yet."""
    compiled = {wheel: cache_dir / bytecode_key(wheel) / wheel.name for wheel in wheels}
    missing = [wheel for wheel, target in compiled.items() if not target.is_file()]
    if missing:
        _compile(missing, pyodide_dir, compiled)
        for wheel in missing:
            _forget_older(compiled[wheel])
    return compiled


def _forget_older(current: Path) -> None:
    """Drop earlier compilations of the same wheel (another script or core): superseded."""
    for older in current.parent.parent.glob(f"*/{current.name}"):
        if older != current:
            shutil.rmtree(older.parent, ignore_errors=True)


def _compile(wheels: list[Path], pyodide_dir: Path, targets: dict[Path, Path]) -> None:
    node = shutil.which("node")
    if node is None:
        raise BuildError("Node.js is needed to compile the wheels' bytecode: install Node 20+.")
    with tempfile.TemporaryDirectory(prefix="wasmbox-bytecode-") as work:
        inbox, outbox = Path(work, "in"), Path(work, "out")
        inbox.mkdir()
        outbox.mkdir()
        for wheel in wheels:
            shutil.copyfile(wheel, inbox / wheel.name)
        done = subprocess.run(  # noqa: S603 - fixed script, paths we made
            [node, str(SCRIPT), str(pyodide_dir), work],
            capture_output=True,
            text=True,
            check=False,
            timeout=900,
        )
        if done.returncode != 0:
            raise BuildError(f"Compiling the wheels' bytecode failed:\n{done.stderr[-2000:]}")
        for wheel in wheels:
            target = targets[wheel]
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".part")
            shutil.copyfile(outbox / wheel.name, partial)
            partial.replace(target)
