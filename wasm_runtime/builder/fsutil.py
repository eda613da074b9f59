"""File writes that keep the build incremental: nothing changes on disk unless its bytes do."""

from __future__ import annotations

from pathlib import Path


def write_if_changed(path: Path, data: bytes) -> bool:
    """Atomically replace `path` with `data` unless it already holds exactly that."""
    if path.is_file() and path.read_bytes() == data:
        return False
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    partial.replace(path)
    return True
