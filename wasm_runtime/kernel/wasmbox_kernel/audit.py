"""The per-run audit collector fed by the process's audit hook (see `context.Dispatcher`).

It notes files opened (read or written) and network attempts. Files under the library roots
(`sys.path`, the prefixes, system directories; never the working directory) are left out:
importing a package or drawing text reads hundreds of them. Lists are capped so a loop cannot
grow the result without bound: files read and network attempts at 1,000, files written at the
protocol's list cap, as `files` is (every file a run leaves new or changed is also written).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterable
from typing import ClassVar

from .protocol_data import LIMITS
from .result import NetworkAttempt

AUDITED_EVENTS = frozenset(
    {"open", "socket.connect", "socket.getaddrinfo", "urllib.Request", "http.client.connect"}
)
MAX_ENTRIES = 1000
MAX_WRITTEN = LIMITS["maxListEntries"]
# Paths opened for writing kept as given before they are worked out (a loop reopening one file).
_OPENED_AT_MOST = 4 * MAX_WRITTEN
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
    # The process's "os.chdir" audit events so far (os.chdir, os.fchdir), whichever run or task
    # made them: the dispatcher counts them. An open after one asks where the directory is.
    directory_moves: ClassVar[int] = 0

    def __init__(self, cwd: str, roots: tuple[str, ...]) -> None:
        self._cwd, self._cwd_prefix, self._root_set, self._root_prefixes = _tests(cwd, roots)
        self.files_read: set[str] = set()
        self.files_written: set[str] = set()
        self.network: list[NetworkAttempt] = []
        # Paths opened for writing as they were given: absolute, or relative to the working
        # directory (the process's then). Working each out at its open (getcwd, join, normalise)
        # was most of the hook's cost in a loop creating files, whose paths the scan lists anyway.
        self._opened: list[str] = []
        # Whether the process's directory is the working directory, as of `directory_moves`.
        self._in_cwd = False
        self._in_cwd_as_of = -1

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
            if writes:
                if len(self.files_written) >= MAX_WRITTEN:
                    return  # full: the path would not be noted, so it is not even worked out
                asked = self._in_cwd_as_of == self.directory_moves  # no chdir since it was asked
                in_cwd = self._in_cwd if asked else self._ask_where()
                if type(target) is str and (in_cwd or target[:1] == "/"):
                    # Noted as it is, worked out at the end of the run (`written`), most not at all.
                    opened = self._opened
                    opened.append(target)
                    if len(opened) >= _OPENED_AT_MOST:
                        self._work_out(opened)
                    return
                bucket = self.files_written
            else:
                bucket = self.files_read
                if len(bucket) >= MAX_ENTRIES:
                    return
            path = os.path.abspath(os.fsdecode(target))
            if path in self._root_set or path.startswith(self._root_prefixes):
                return
            bucket.add(self.relative(path))
        except Exception:  # noqa: S110 (an audit hook must never break the audited operation)
            pass

    def written(self, changed: list[str]) -> list[str]:
        """The files the run wrote, sorted: those it opened for writing and `changed` (the scan's
        new or changed files, sorted), the first MAX_WRITTEN of them (the host refuses a longer
        list). A path opened as the scan lists it (relative, plain) is not worked out; when every
        open is among `changed` (a loop that created the files), `changed` itself: thousands of
        paths are not put in a set and sorted again."""
        if self._opened:
            self._work_out(set(self._opened).difference(changed))
        if self.files_written.difference(changed):
            return sorted(self.files_written.union(changed))[:MAX_WRITTEN]
        return changed

    def _work_out(self, targets: Iterable[str]) -> None:
        """Paths noted as opened (absolute, or relative to the working directory) into
        `files_written`, as `on_open` would have noted them, until it is full; `_opened` is
        emptied."""
        self._opened = []
        for target in dict.fromkeys(targets):
            if len(self.files_written) >= MAX_WRITTEN:
                return
            path = os.path.normpath(os.path.join(self._cwd, target))
            if path not in self._root_set and not path.startswith(self._root_prefixes):
                self.files_written.add(self.relative(path))

    def _ask_where(self) -> bool:
        """Whether the process's directory is the working directory, asked of the file system at
        the run's first open and after an "os.chdir" event (the run's own `cd`, or a task's)."""
        where = os.getcwd()  # raises when the directory is gone: asked again at the next open
        self._in_cwd_as_of = AuditCollector.directory_moves
        self._in_cwd = where == self._cwd
        return self._in_cwd

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
