"""Browser profiles kept between processes for hosts that are not named sessions, so a new process's
page finds the runtime's files already decoded in its CacheStorage and Chromium's caches warm.

    <cache dir>/client/<browser>-<n>/{profile/, port, lock}

The cache dir is `WASMBOX_CACHE_DIR`, else `$XDG_CACHE_HOME/wasmbox`, else `~/.cache/wasmbox`, made
readable by its owner only. A slot serves one process at a time (an OS file lock); when all
MAX_SLOTS are taken, or the directory cannot be used, the host falls back to a fresh temporary
profile. The page's origin, `http://127.0.0.1:PORT`, owns that storage, so a slot keeps its port;
if the port is taken when a slot is claimed, the slot starts over empty on a new one.

Only the runtime cache is meant to carry over: the host clears the origin's other storage
(IndexedDB, where persisted sandboxes live, localStorage, OPFS...) before it opens the page and
again when it closes, so nothing a sandbox saved reaches the next process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
from dataclasses import dataclass, field
from pathlib import Path

from wasmbox.locks import FileLock

MAX_SLOTS = 4
# `Storage.clearDataForOrigin` types: all of an origin's storage but CacheStorage (the runtime).
CLEARED_STORAGE = (
    "cookies,file_systems,indexeddb,local_storage,websql,service_workers,"
    "shared_storage,storage_buckets"
)


def cache_dir() -> Path:
    if explicit := os.environ.get("WASMBOX_CACHE_DIR"):
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "wasmbox"


@dataclass
class ProfileSlot:
    """One claimed slot: its profile directory and port, this process's until `release()`."""

    directory: Path
    port: int
    _lock: FileLock | None = field(default=None, repr=False)

    @property
    def profile(self) -> Path:
        return self.directory / "profile"

    def remember(self, port: int) -> None:
        """The port the server got (another one when the slot's was taken meanwhile)."""
        if port != self.port:
            self.port = port
            with contextlib.suppress(OSError):
                (self.directory / "port").write_text(str(port))

    def discard(self) -> None:
        """Empty the profile (the browser refused it); the slot starts over next time."""
        remove(self.profile)

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()


def claim_slot(browser: str, root: Path | None = None) -> ProfileSlot | None:
    """A free slot for `browser`, locked for this process; None when none can be had."""
    base = (root or cache_dir()) / "client"
    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError:
        return None
    for n in range(MAX_SLOTS):
        directory = base / f"{browser}-{n}"
        try:
            directory.mkdir(exist_ok=True, mode=0o700)
            lock = FileLock.take(directory / "lock")
        except OSError:
            continue
        if lock is None:
            continue
        slot = ProfileSlot(directory, 0, lock)
        try:
            slot.port = usable_port(directory)
            unlock_profile(slot.profile)
        except OSError:
            slot.release()
            continue
        return slot
    return None


def usable_port(directory: Path) -> int:
    """The slot's port when it is free; else a new one, with the profile emptied, since nothing
    stored under the old origin would be found from the new one."""
    try:
        saved = int((directory / "port").read_text())
    except (OSError, ValueError):
        saved = 0
    if 0 < saved < 65536 and port_free(saved):
        return saved
    remove(directory / "profile")
    port = free_port()
    (directory / "port").write_text(str(port))
    return port


def unlock_profile(profile: Path) -> None:
    """Drop what a browser that did not close left behind: Chromium refuses a profile whose
    `SingletonLock` names another host, and our own lock already keeps other processes out.
    Whatever is not a directory there goes too."""
    if profile.is_dir() and not profile.is_symlink():
        for name in ("SingletonLock", "SingletonSocket", "SingletonCookie"):
            (profile / name).unlink(missing_ok=True)
    else:
        remove(profile)


def remove(path: Path) -> None:
    """Remove a directory tree, or whatever else is at `path`; nothing there is fine."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        # As uvicorn binds: a previous run's connections in TIME_WAIT do not hold the port.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port
