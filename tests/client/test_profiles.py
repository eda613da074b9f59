"""The cached browser profiles of hosts that are not named sessions (wasmbox.profiles): one slot
per process, reused by the next; only the runtime's files carry over; a broken one never stops a
start."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

import wasmbox.host
from tests.client.conftest import Loop
from tests.support.runtime_store import STORE_KEYS
from wasmbox import Host, Sandbox, SandboxError
from wasmbox.profiles import MAX_SLOTS, ProfileSlot, claim_slot, free_port

RUNTIME_ENTRIES = f"async () => (await ({STORE_KEYS})()).length"


def test_a_slot_is_private_locked_and_reused_with_its_port(tmp_path: Path) -> None:
    first = claim_slot("chromium", tmp_path)
    assert first is not None and first.directory == tmp_path / "client" / "chromium-0"
    assert stat.S_IMODE(first.directory.stat().st_mode) == 0o700
    second = claim_slot("chromium", tmp_path)  # the first is held: the next slot
    assert second is not None and second.directory.name == "chromium-1"
    port = first.port
    first.release()
    second.release()
    again = claim_slot("chromium", tmp_path)
    assert again is not None and (again.directory.name, again.port) == ("chromium-0", port)
    again.release()


def test_with_every_slot_taken_there_is_none(tmp_path: Path) -> None:
    held = [claim_slot("chromium", tmp_path) for _ in range(MAX_SLOTS)]
    assert all(held)
    assert claim_slot("chromium", tmp_path) is None
    for slot in held:
        assert slot is not None
        slot.release()


def test_a_damaged_or_taken_port_starts_the_slot_over(tmp_path: Path) -> None:
    slot = claim_slot("chromium", tmp_path)
    assert slot is not None
    slot.profile.mkdir()
    (slot.profile / "stale").write_text("from another origin")
    slot.release()
    (slot.directory / "port").write_text("not a port")
    again = claim_slot("chromium", tmp_path)
    assert again is not None and 0 < again.port < 65536
    assert not slot.profile.exists()  # nothing stored under the old origin would be found
    again.release()


def test_an_unusable_cache_dir_gives_no_slot(tmp_path: Path) -> None:
    (tmp_path / "client").write_text("a file where the directory should be")
    assert claim_slot("chromium", tmp_path) is None
    assert 0 < free_port() < 65536


@pytest.mark.browser
def test_the_runtime_cache_carries_over_and_nothing_a_sandbox_saved(
    loop: Loop, runtime_built: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WASMBOX_CACHE_DIR", str(tmp_path))

    async def first_process() -> str:
        async with await Host.start() as host:
            assert host._slot is not None and host._slot.profile.is_relative_to(tmp_path)
            sb = await Sandbox.create(persist=True, host=host)
            await sb.execute("saved = 'secret'")
            # Stored in the background, with no event to wait on.
            while not await host.page.evaluate(RUNTIME_ENTRIES):  # noqa: ASYNC110
                await asyncio.sleep(0.2)
            await sb.close()
            return sb.id

    async def next_process(saved_id: str) -> int:
        async with await Host.start() as host:
            kept: int = await host.page.evaluate(RUNTIME_ENTRIES)
            with pytest.raises(SandboxError, match="SessionNotFound"):
                await Sandbox.resume(saved_id, host=host)
            sb = await Sandbox.create(host=host)
            assert (await sb.execute("'saved' in globals()")).text == "False"
        return kept

    assert loop(next_process(loop(first_process()))) > 0


def test_what_a_browser_that_did_not_close_left_is_cleared(tmp_path: Path) -> None:
    slot = claim_slot("chromium", tmp_path)
    assert slot is not None
    slot.profile.mkdir()
    (slot.profile / "SingletonLock").symlink_to("another-host-12345")
    (slot.profile / "kept").write_text("the cache")
    slot.release()
    again = claim_slot("chromium", tmp_path)
    assert again is not None
    assert not (again.profile / "SingletonLock").is_symlink()
    assert (again.profile / "kept").read_text() == "the cache"
    again.release()


def refused_profile(root: Path) -> Callable[[str], ProfileSlot | None]:
    """`claim_slot`, then a `SingletonLock` naming another host, which Chromium refuses."""

    def claim(browser: str) -> ProfileSlot | None:
        slot = claim_slot(browser, root)
        assert slot is not None
        slot.profile.mkdir(exist_ok=True)
        (slot.profile / "SingletonLock").symlink_to("another-host-12345")
        return slot

    return claim


@pytest.mark.browser
def test_a_profile_the_browser_refuses_does_not_stop_the_start(
    loop: Loop, runtime_built: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wasmbox.host, "claim_slot", refused_profile(tmp_path))

    async def scenario() -> str | None:
        async with await Sandbox.create() as sb:
            return (await sb.execute("1 + 1")).text

    assert loop(scenario()) == "2"  # on a temporary profile
    assert not (tmp_path / "client" / "chromium-0" / "profile").exists()  # emptied for next time


@pytest.mark.browser
def test_cache_false_keeps_no_profile(
    loop: Loop, runtime_built: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WASMBOX_CACHE_DIR", str(tmp_path))

    async def scenario() -> None:
        async with await Host.start(cache=False) as host:
            assert host._slot is None

    loop(scenario())
    assert not (tmp_path / "client").exists()
