"""Playwright's driver starts with Node's compile cache in wasmbox's cache directory
(wasmbox.driver), and the environment is left as it was found."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client.conftest import Loop
from wasmbox.driver import VARIABLE, start_playwright


@pytest.fixture
def loop() -> Iterator[Loop]:
    loop = Loop()
    yield loop
    loop.close()


async def start_and_stop(cache: bool = True) -> None:
    playwright = await start_playwright(cache)
    await playwright.stop()  # the driver exits normally: Node writes its cache then


def test_the_driver_fills_the_compile_cache(
    loop: Loop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WASMBOX_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(VARIABLE, raising=False)
    loop(start_and_stop())
    cache = tmp_path / "client" / "node-compile-cache"
    assert any(path.is_file() for path in cache.rglob("*")), "Node wrote no compiled code"
    assert VARIABLE not in os.environ


def test_a_compile_cache_the_user_chose_is_kept(
    loop: Loop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = tmp_path / "theirs"
    monkeypatch.setenv("WASMBOX_CACHE_DIR", str(tmp_path / "ours"))
    monkeypatch.setenv(VARIABLE, str(theirs))
    loop(start_and_stop())
    assert os.environ[VARIABLE] == str(theirs)
    assert any(path.is_file() for path in theirs.rglob("*"))
    assert not (tmp_path / "ours").exists()


def test_an_unusable_cache_directory_does_not_stop_the_driver(
    loop: Loop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WASMBOX_CACHE_DIR", str(blocker))
    monkeypatch.delenv(VARIABLE, raising=False)
    loop(start_and_stop())
    assert VARIABLE not in os.environ


def test_without_the_cache_nothing_is_written(
    loop: Loop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WASMBOX_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(VARIABLE, raising=False)
    loop(start_and_stop(cache=False))
    assert not (tmp_path / "client").exists()
