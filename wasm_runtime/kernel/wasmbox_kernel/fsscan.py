"""Before/after scans of the working directory: which files a run created or changed."""

from __future__ import annotations

import os

from .protocol_data import LIMITS, guess_mime
from .result import FileInfo

Snapshot = dict[str, tuple[int, int]]
"""Relative path to (size, mtime_ns)."""

MAX_FILES = LIMITS["maxListEntries"]
MAX_DEPTH = 16


def scan(root: str) -> Snapshot:
    """Regular files below `root` (links not followed), at most MAX_FILES of them."""
    found: Snapshot = {}
    _walk(root, "", found, 0)
    return found


def changed_files(before: Snapshot, after: Snapshot) -> list[FileInfo]:
    """Files that are new or whose size or mtime changed, sorted by path."""
    return [
        FileInfo(path=path, size=stat[0], mime=guess_mime(path))
        for path, stat in sorted(after.items())
        if before.get(path) != stat
    ]


def _walk(directory: str, prefix: str, found: Snapshot, depth: int) -> None:
    if depth > MAX_DEPTH:
        return
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in sorted(entries, key=lambda e: e.name):
        if len(found) >= MAX_FILES:
            return
        name = prefix + entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                _walk(entry.path, name + "/", found, depth + 1)
            elif entry.is_file(follow_symlinks=False):
                stat = entry.stat(follow_symlinks=False)
                found[name] = (stat.st_size, stat.st_mtime_ns)
        except OSError:
            continue
