"""The file lock behind named sessions and profile slots."""

from __future__ import annotations

import os
from pathlib import Path

from wasmbox.locks import FileLock, holder


def test_one_holder_at_a_time_and_it_is_named(tmp_path: Path) -> None:
    path = tmp_path / "lock"
    first = FileLock.take(path)
    assert first is not None
    assert FileLock.take(path) is None  # flock: a second open file is refused, same process or not
    assert holder(path) == str(os.getpid())
    first.release()
    first.release()  # twice is harmless
    again = FileLock.take(path)
    assert again is not None
    again.release()


def test_holder_of_a_missing_lock_is_unknown(tmp_path: Path) -> None:
    assert holder(tmp_path / "absent") == "unknown"
