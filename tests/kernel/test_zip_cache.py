"""importlib.invalidate_caches() skips re-reading a zip archive on sys.path that has not changed,
and still re-reads one that has."""

from __future__ import annotations

import importlib
import os
import sys
import zipfile
import zipimport
from collections.abc import Iterator
from pathlib import Path

import pytest
from wasmbox_kernel._patches import zip_cache


def write_archive(path: Path, modules: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, source in modules.items():
            archive.writestr(f"{name}.py", source)


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "lib.zip"
    write_archive(path, {"zipped_a": "A = 1\n", "zpkg/__init__": "", "zpkg/sub": ""})
    monkeypatch.syspath_prepend(str(path))
    # Restored after the test: the patch is per interpreter.
    monkeypatch.setattr(
        zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches
    )
    importlib.import_module("zipped_a")
    yield path
    for name in ("zipped_a", "zipped_b", "zpkg", "zpkg.sub", "zpkg.new"):
        sys.modules.pop(name, None)
    for key in [key for key in sys.path_importer_cache if key.startswith(str(path))]:
        del sys.path_importer_cache[key]


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    read_directory = zipimport._read_directory  # type: ignore[attr-defined]

    def counted(archive: str) -> object:
        reads.append(archive)
        return read_directory(archive)

    monkeypatch.setattr(zipimport, "_read_directory", counted)
    return reads


def test_an_unchanged_archive_is_not_read_again(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zip_cache.skip_unchanged_zip_rereads()
    reads = count_reads(monkeypatch)
    importlib.invalidate_caches()
    importlib.invalidate_caches()
    assert str(archive) not in reads


def test_an_importer_made_after_the_patch_does_not_read_it_again(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zip_cache.skip_unchanged_zip_rereads()
    importlib.import_module("zpkg.sub")  # a second importer, for the package's directory
    reads = count_reads(monkeypatch)
    importlib.invalidate_caches()
    assert str(archive) not in reads


def test_one_reread_of_a_changed_archive_serves_all_its_importers(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zip_cache.skip_unchanged_zip_rereads()
    importlib.import_module("zpkg.sub")
    write_archive(
        archive, {"zipped_a": "", "zpkg/__init__": "", "zpkg/sub": "", "zpkg/new": "N = 3"}
    )
    os.utime(archive, ns=(1, 1))  # a new stamp even where the clock is coarse
    reads = count_reads(monkeypatch)
    importlib.invalidate_caches()
    assert reads.count(str(archive)) == 1
    assert importlib.import_module("zpkg.new").N == 3


def test_a_changed_archive_is_read_again(archive: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zip_cache.skip_unchanged_zip_rereads()
    write_archive(archive, {"zipped_a": "A = 1\n", "zipped_b": "B = 2\n"})
    os.utime(archive, ns=(1, 1))  # a new stamp even where the clock is coarse
    reads = count_reads(monkeypatch)
    importlib.invalidate_caches()
    assert reads.count(str(archive)) == 1
    assert importlib.import_module("zipped_b").B == 2


def test_installing_twice_wraps_once(archive: Path) -> None:
    zip_cache.skip_unchanged_zip_rereads()
    patched = zipimport.zipimporter.invalidate_caches
    zip_cache.skip_unchanged_zip_rereads()
    assert zipimport.zipimporter.invalidate_caches is patched
