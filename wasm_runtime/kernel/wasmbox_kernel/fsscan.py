"""Before/after scans of the working directory: which files a run created or changed."""

from __future__ import annotations

import os

from .protocol_data import LIMITS, guess_mime
from .result import FileInfo

Snapshot = dict[str, tuple[int, int]]
"""Relative path to (size, mtime): nanoseconds from `scan`, milliseconds from the worker's walk
(`unpack`); a snapshot is only compared with one of the same kind."""

MAX_FILES = LIMITS["maxListEntries"]
MAX_DEPTH = 16


def scan(root: str) -> Snapshot:
    """Regular files below `root` (links not followed), at most MAX_FILES of them."""
    found: Snapshot = {}
    _walk(root, "", found, 0)
    return found


def unpack(text: str) -> Snapshot:
    """The worker's walk of the same files (sandbox/file-scan.ts): path, size and mtime of each,
    NUL-separated (no file name holds one), taken apart in C-level calls."""
    if not text:
        return {}
    fields = text.split("\0")
    sizes = map(int, fields[1::3])
    times = map(int, fields[2::3])
    return dict(zip(fields[0::3], zip(sizes, times, strict=True), strict=True))


def changed_files(before: Snapshot, after: Snapshot) -> list[FileInfo]:
    """Files that are new or whose size or mtime changed, sorted by path."""
    changed = sorted(path for path, stat in after.items() if before.get(path) != stat)
    # A path's type (`guess_mime`) depends only on its ending from the character before its last
    # dot; an ending with no dot in that place (no dot, or one that begins the path) always has
    # the default type. So it is worked out once per ending, not once per file.
    by_ending: dict[str, str] = {}
    files: list[FileInfo] = []
    for path in changed:
        ending = path[path.rfind(".") - 1 :]
        mime = by_ending.get(ending)
        if mime is None:
            mime = by_ending[ending] = guess_mime(path)
        # A dict display: a TypedDict's call costs more, paid per file of a run writing thousands.
        files.append({"path": path, "size": after[path][0], "mime": mime})
    return files


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
