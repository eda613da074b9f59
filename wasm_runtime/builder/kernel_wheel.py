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

IGNORED = ("__pycache__", ".egg-info", "build", "dist")


def source_files(src: Path) -> list[Path]:
    return sorted(
        path
        for path in src.rglob("*")
        if path.is_file()
        and not any(part.endswith(IGNORED) for part in path.relative_to(src).parts)
    )


def source_hash(src: Path) -> str:
    digest = hashlib.sha256()
    for path in source_files(src):
        digest.update(path.relative_to(src).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:10]


def build_kernel_wheel(src: Path, cache_dir: Path) -> Path:
    """Return the kernel wheel for the current sources, building it only when they changed."""
    tag = source_hash(src)
    out = cache_dir / tag
    existing = sorted(out.glob("*.whl")) if out.is_dir() else []
    if existing:
        return existing[0]
    with tempfile.TemporaryDirectory() as tmp:
        staged = Path(tmp) / "kernel"
        shutil.copytree(src, staged, ignore=shutil.ignore_patterns(*(f"*{p}" for p in IGNORED)))
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
