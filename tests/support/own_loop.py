"""Run a coroutine to the end in an event loop of its own thread.

`asyncio.run` refuses to start where a loop already runs, and Playwright's sync API keeps one
running in the main thread for the whole session once a browser test has started. With two
pytest workers, a worker may run browser modules before these, so they must not depend on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run_in_own_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()
