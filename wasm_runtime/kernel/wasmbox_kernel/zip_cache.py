"""Keeps `importlib.invalidate_caches()` from re-reading zip archives that have not changed.

Pyodide calls it after every package it loads. CPython 3.12's zipimport then re-reads the whole
directory of its archive once per zipimporter, and a booted sandbox has about 18 of them over
the standard library's zip (one per package imported from it): some 10,000 entries parsed in
Python, 0.1 s or more of every package load. An archive whose size and modification time are
those of the last read has the same directory, so that importer skips the re-read. (CPython 3.13
stopped re-reading eagerly for the same reason.)
"""

from __future__ import annotations

import os
import sys
import weakref
import zipimport

Stamp = tuple[int, int]


def _stamp(path: str) -> Stamp | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def skip_unchanged_zip_rereads() -> None:
    """Patch zipimport once per interpreter. The importers that exist now are taken as current:
    in a sandbox they were read from this very archive, the one the start-up snapshot was made
    with."""
    original = zipimport.zipimporter.invalidate_caches
    if getattr(original, "skips_unchanged", False):
        return
    read_at: weakref.WeakKeyDictionary[zipimport.zipimporter, Stamp] = weakref.WeakKeyDictionary()
    for importer in list(sys.path_importer_cache.values()):
        if isinstance(importer, zipimport.zipimporter) and (stamp := _stamp(importer.archive)):
            read_at[importer] = stamp

    def invalidate_caches(self: zipimport.zipimporter) -> None:
        stamp = _stamp(self.archive)
        if stamp is not None and read_at.get(self) == stamp:
            return
        original(self)
        if stamp is not None:
            read_at[self] = stamp

    invalidate_caches.skips_unchanged = True  # type: ignore[attr-defined]
    zipimport.zipimporter.invalidate_caches = invalidate_caches  # type: ignore[method-assign]
