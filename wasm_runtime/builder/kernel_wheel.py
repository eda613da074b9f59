"""Build the in-sandbox kernel (`wasm_runtime/kernel`) into a wheel, once per source change.

The wheel's version carries a hash of its sources (`0.1.0+k1a2b3c4d`), so a changed kernel gets a
new file name and browsers never keep a stale one under an immutable URL.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from wasm_runtime.builder.errors import BuildError
from wasm_runtime.paths import PROTOCOL_DIR

IGNORED = ("__pycache__", ".egg-info", "build", "dist")


def source_files(src: Path) -> list[Path]:
    return sorted(
        path
        for path in src.rglob("*")
        if path.is_file()
        and not any(part.endswith(IGNORED) for part in path.relative_to(src).parts)
    )


def protocol_tables(protocol_dir: Path) -> list[Path]:
    """The shared tables the kernel reads (wasmbox_kernel/protocol_data.py)."""
    return sorted(protocol_dir.glob("*.json"))


def source_hash(src: Path, protocol_dir: Path = PROTOCOL_DIR) -> str:
    digest = hashlib.sha256()
    for path in source_files(src):
        digest.update(path.relative_to(src).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for path in protocol_tables(protocol_dir):
        digest.update(b"protocol/" + path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:10]


def build_kernel_wheel(src: Path, cache_dir: Path, protocol_dir: Path = PROTOCOL_DIR) -> Path:
    """Return the kernel wheel for the current sources, building it only when they changed."""
    tag = source_hash(src, protocol_dir)
    out = cache_dir / tag
    existing = sorted(out.glob("*.whl")) if out.is_dir() else []
    if existing:
        return existing[0]
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / "kernel"
        shutil.copytree(src, staged, ignore=shutil.ignore_patterns(*(f"*{p}" for p in IGNORED)))
        tables = staged / "wasmbox_kernel" / "protocol"
        tables.mkdir()
        for table in protocol_tables(protocol_dir):
            shutil.copy2(table, tables / table.name)
        pyproject = staged / "pyproject.toml"
        text, count = re.subn(
            r'^version = "([^"+]+)"$', rf'version = "\1+k{tag}"', pyproject.read_text(), flags=re.M
        )
        if count != 1:
            raise BuildError(f'{src / "pyproject.toml"} needs one `version = "X.Y.Z"` line.')
        pyproject.write_text(text)
        wheel_dir = Path(tmp) / "wheel"
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        command += ["--disable-pip-version-check", "-q", "-w", str(wheel_dir), str(staged)]
        env = {**os.environ, "SOURCE_DATE_EPOCH": "315532800"}  # reproducible zip timestamps
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)  # noqa: S603
        wheels = sorted(wheel_dir.glob("*.whl"))
        if done.returncode != 0 or not wheels:
            raise BuildError(f"Building the kernel wheel failed:\n{done.stdout}{done.stderr}")
        out.mkdir(parents=True, exist_ok=True)
        return Path(shutil.copy2(wheels[0], out / wheels[0].name))
