"""Where official files come from: the cache, mirrors, and what happens when none has a file."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from wasm_runtime.builder.errors import BuildError, HashMismatchError
from wasm_runtime.builder.sources import DirSource, VerifiedStore

GOOD = b"official bytes"
GOOD_SHA = hashlib.sha256(GOOD).hexdigest()


def mirror_with(tmp_path: Path, data: bytes) -> DirSource:
    folder = tmp_path / "mirror"
    folder.mkdir()
    (folder / "pkg-1.0-py3-none-any.whl").write_bytes(data)
    return DirSource(folder)


def test_mirror_folder_fills_the_cache(tmp_path: Path) -> None:
    store = VerifiedStore(tmp_path / "cache", [mirror_with(tmp_path, GOOD)])
    path = store.get("pkg-1.0-py3-none-any.whl", GOOD_SHA)
    assert path.read_bytes() == GOOD
    assert path.parent == tmp_path / "cache"
    assert store.downloaded == ["pkg-1.0-py3-none-any.whl"]


def test_cached_file_is_used_without_asking_sources(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "pkg-1.0-py3-none-any.whl").write_bytes(GOOD)
    store = VerifiedStore(tmp_path / "cache", [])
    assert store.get("pkg-1.0-py3-none-any.whl", GOOD_SHA).read_bytes() == GOOD
    assert store.downloaded == []


def test_wrong_bytes_from_a_mirror_are_refused_and_not_cached(tmp_path: Path) -> None:
    store = VerifiedStore(tmp_path / "cache", [mirror_with(tmp_path, b"evil")])
    with pytest.raises(HashMismatchError, match="mirror folder") as caught:
        store.get("pkg-1.0-py3-none-any.whl", GOOD_SHA)
    assert caught.value.expected == GOOD_SHA
    assert caught.value.actual == hashlib.sha256(b"evil").hexdigest()
    assert list((tmp_path / "cache").iterdir()) == []


def test_refresh_replaces_a_corrupt_cached_file(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "pkg-1.0-py3-none-any.whl").write_bytes(b"corrupt")
    store = VerifiedStore(tmp_path / "cache", [mirror_with(tmp_path, GOOD)], refresh=True)
    assert store.get("pkg-1.0-py3-none-any.whl", GOOD_SHA).read_bytes() == GOOD


def test_file_found_nowhere_names_every_place_tried(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    store = VerifiedStore(tmp_path / "cache", [DirSource(empty)])
    with pytest.raises(BuildError) as caught:
        store.get("pkg-1.0-py3-none-any.whl", GOOD_SHA)
    message = str(caught.value)
    assert str(tmp_path / "cache") in message
    assert f"mirror folder {empty}" in message
    assert "--mirror" in message
