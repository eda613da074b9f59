"""An exclusive lock on a file, held by one process at a time: a named session, a profile slot.

The kernel drops the lock when the process exits, so a crashed process never leaves it taken."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import IO


class FileLock:
    def __init__(self, handle: IO[str]) -> None:
        self._handle: IO[str] | None = handle

    @classmethod
    def take(cls, path: Path) -> FileLock | None:
        """The lock on `path` with this process's pid written in it; None if another holds it."""
        handle = path.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        return cls(handle)

    def release(self) -> None:
        if self._handle is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._handle, fcntl.LOCK_UN)
            self._handle.close()
            self._handle = None


def holder(path: Path) -> str:
    """The pid the lock's holder wrote, or "unknown"."""
    try:
        return path.read_text().strip() or "unknown"
    except OSError:
        return "unknown"
