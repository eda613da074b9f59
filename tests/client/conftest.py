"""Fixtures for the Python client: one event loop and one browser host per module."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from wasmbox import Host, Sandbox

T = TypeVar("T")


class Loop:
    """Runs the client's coroutines from sync tests, all on one event loop in its own thread.

    A thread of its own, because pytest-playwright's sync API keeps a loop running in the main one.
    """

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def __call__(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture(scope="module")
def loop() -> Iterator[Loop]:
    running = Loop()
    yield running
    running.close()


@pytest.fixture(scope="module")
def host(loop: Loop, runtime_built: None) -> Iterator[Host]:
    started = loop(Host.start())
    yield started
    loop(started.close())


@pytest.fixture(scope="module")
def sandbox(loop: Loop, host: Host) -> Iterator[Sandbox]:
    """A sandbox shared by the module's tests that do not disturb each other."""
    sb = loop(Sandbox.create(timeout=300, host=host))
    yield sb
    loop(sb.close())
