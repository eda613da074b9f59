"""Keeps `importlib.invalidate_caches()` from re-reading zip archives that have not changed.

Pyodide calls it after every package it loads. CPython 3.12's zipimport then re-reads the whole
directory of its archive once per zipimporter, and a booted sandbox has about 18 of them over
the standard library's zip (one per package imported from it): some 10,000 entries parsed in
Python, 0.1 s or more of every package load. An archive whose size and modification time are
those of its last read has the same directory: the importer takes that read's directory instead,
so one re-read per changed archive serves all its importers. (CPython 3.13 stopped re-reading
eagerly for the same reason.)
"""

from __future__ import annotations

import os
import zipimport

Stamp = tuple[int, int]


def _stamp(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def skip_unchanged_zip_rereads() -> None:
    """Patch zipimport once per interpreter. The directories it has cached now are taken as
    current: in a sandbox they were read from this very archive, the one the start-up snapshot
    was made with."""
    original = zipimport.zipimporter.invalidate_caches
    if getattr(original, "skips_unchanged", False):
        return
    # zipimport's own cache, archive -> directory: new importers take their directory from it.
    directories: dict[str, object] = zipimport._zip_directory_cache  # type: ignore[attr-defined]
    read_at = {archive: stamp for archive in directories if (stamp := _stamp(archive))}

    def invalidate_caches(self: zipimport.zipimporter) -> None:
        archive, stamp = self.archive, _stamp(self.archive)
        if stamp is not None and read_at.get(archive) == stamp and archive in directories:
            self._files = directories[archive]  # type: ignore[attr-defined]  # the last read's
            return
        original(self)  # re-reads the archive into the shared cache
        if stamp is not None and archive in directories:
            read_at[archive] = stamp
        else:
            read_at.pop(archive, None)

    invalidate_caches.skips_unchanged = True  # type: ignore[attr-defined]
    zipimport.zipimporter.invalidate_caches = invalidate_caches  # type: ignore[method-assign]
