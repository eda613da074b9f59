"""A private copy of the warm download cache for each test, so tests can tamper with it safely.

Files are hard-linked (cheap) except where a test replaces one, which then gets its own inode.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from wasm_runtime.paths import default_cache_dir


@pytest.fixture(scope="session")
def warm_cache() -> Path:
    cache = default_cache_dir()
    if not (cache / "mirror-wheel").is_dir():
        pytest.fail(f"No warm cache at {cache}: run `make runtime` once before these tests.")
    return cache


@pytest.fixture
def cache_copy(warm_cache: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "cache"

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:  # another filesystem: fall back to a real copy
            shutil.copy2(src, dst)

    shutil.copytree(warm_cache, copy, copy_function=link)
    return copy


def replace_file(path: Path, data: bytes) -> None:
    """Give `path` new contents without touching the hard-linked original."""
    path.unlink()
    path.write_bytes(data)
