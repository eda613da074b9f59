"""Pre-compressed siblings always match the file they stand for."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import brotli

from wasm_runtime.builder.compress import precompress


def test_a_stale_sibling_of_the_same_size_is_replaced(tmp_path: Path) -> None:
    """A lock file whose only change was one hash compressed to the same size, and the build kept
    the old .br: clients accepting brotli were sent the previous lock."""
    lock = tmp_path / "out" / "lock.json"
    lock.parent.mkdir()
    lock.write_bytes(b'{"file": "kernel-k4ffa259646.whl"}' * 50)
    precompress(lock, hashlib.sha256(lock.read_bytes()).hexdigest(), tmp_path / "cache")
    stale = {suffix: lock.with_name(lock.name + suffix).read_bytes() for suffix in (".br", ".gz")}

    lock.write_bytes(b'{"file": "kernel-k5887318ba7.whl"}' * 50)
    for suffix, data in stale.items():  # as if compression had happened to give the same sizes
        lock.with_name(lock.name + suffix).write_bytes(data)
    precompress(lock, hashlib.sha256(lock.read_bytes()).hexdigest(), tmp_path / "cache")

    assert brotli.decompress(lock.with_name("lock.json.br").read_bytes()) == lock.read_bytes()
    assert gzip.decompress(lock.with_name("lock.json.gz").read_bytes()) == lock.read_bytes()
