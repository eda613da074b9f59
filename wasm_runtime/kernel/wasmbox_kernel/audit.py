"""The per-run audit collector fed by the process's audit hook (see `context.Dispatcher`).

It notes files opened (read or written) and network attempts. Files under the library roots
(`sys.path`, the prefixes, system directories; never the working directory) are left out:
importing a package or drawing text reads hundreds of them. Lists are capped so a loop cannot
grow the result without bound.
"""

from __future__ import annotations

import functools
import os
import sys

from .result import NetworkAttempt

AUDITED_EVENTS = frozenset(
    {"open", "socket.connect", "socket.getaddrinfo", "urllib.Request", "http.client.connect"}
)
MAX_ENTRIES = 1000
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_WRITE_MODES = frozenset("wax+")


SYSTEM_DIRS = ("/usr", "/lib", "/etc", "/proc", "/dev", "/sys")


def library_roots(cwd: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Directories whose files are the runtime's, not the user's (unless they hold cwd)."""
    cwd = os.path.abspath(cwd)
    roots: list[str] = []
    prefixes = (sys.prefix, sys.base_prefix, sys.exec_prefix)
    for entry in (*sys.path, *prefixes, *SYSTEM_DIRS, *extra):
        if not entry:
            continue
        path = os.path.abspath(entry)
        outside = not _inside(path, cwd) and not _inside(cwd, path)
        if outside and path != "/" and path not in roots:
            roots.append(path)
    return tuple(roots)


class AuditCollector:
    def __init__(self, cwd: str, roots: tuple[str, ...]) -> None:
        self._cwd, self._cwd_prefix, self._root_set, self._root_prefixes = _tests(cwd, roots)
        self.files_read: set[str] = set()
        self.files_written: set[str] = set()
        self.network: list[NetworkAttempt] = []

    def on_event(self, event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            self.on_open(args)
            return
        # Not contextlib.suppress: a context manager per event costs more than the event's work.
        try:  # noqa: SIM105
            self._on_network(event, args)
        except Exception:  # noqa: S110 (an audit hook must never break the audited operation)
            pass

    def on_open(self, args: tuple[object, ...]) -> None:
        """An "open" event: the path read or written, unless it is the runtime's own. One call,
        its work inline: a loop that opens thousands of files pays each frame per open."""
        try:
            target, mode, flags = args[0], args[1], args[2]
            if not isinstance(target, str | bytes | os.PathLike):
                return  # a file descriptor
            if isinstance(mode, str):
                writes = not _WRITE_MODES.isdisjoint(mode)
            else:
                writes = isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
            bucket = self.files_written if writes else self.files_read
            if len(bucket) >= MAX_ENTRIES:
                return  # full: the path would not be noted, so it is not even worked out
            path = os.path.abspath(os.fsdecode(target))
            if path in self._root_set or path.startswith(self._root_prefixes):
                return
            bucket.add(self.relative(path))
        except Exception:  # noqa: S110 (an audit hook must never break the audited operation)
            pass

    def written(self, changed: list[str]) -> list[str]:
        """The files the run wrote, sorted: those it opened for writing and `changed` (the scan's
        new or changed files, sorted). When every open is among `changed` (a loop that created
        the files), `changed` itself: thousands of paths are not put in a set and sorted again."""
        if self.files_written.difference(changed):
            return sorted(self.files_written.union(changed))
        return changed

    def relative(self, path: str) -> str:
        """`path` (absolute and normalised) relative to the working directory when inside it,
        else as it is."""
        if path == self._cwd:
            return "."
        return path[len(self._cwd_prefix) :] if path.startswith(self._cwd_prefix) else path

    def _on_network(self, event: str, args: tuple[object, ...]) -> None:
        if len(self.network) >= MAX_ENTRIES:
            return
        if event == "socket.connect":
            target = _address(args[1])
        elif event == "socket.getaddrinfo":
            target = _address((args[0], args[1]))
        elif event == "http.client.connect":
            target = _address((args[1], args[2]))
        else:  # urllib.Request
            target = str(args[0])
        self.network.append(NetworkAttempt(kind=event, target=target))


@functools.lru_cache(maxsize=8)
def _tests(cwd: str, roots: tuple[str, ...]) -> tuple[str, str, frozenset[str], tuple[str, ...]]:
    """The working directory and its prefix, and the roots as a set and as prefixes: one C-level
    test per open instead of a Python loop over the roots (a loop that opens thousands of files
    pays it each time). Made once per kernel, not per run."""
    absolute = os.path.abspath(cwd)
    prefixes = tuple(root.rstrip("/") + "/" for root in roots)
    return absolute, absolute.rstrip("/") + "/", frozenset(roots), prefixes


def _address(address: object) -> str:
    if isinstance(address, tuple) and len(address) >= 2:
        host = address[0].decode() if isinstance(address[0], bytes) else str(address[0])
        return f"{host}:{address[1]}"
    return str(address)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
