"""Kernel tests run on plain CPython: the kernel package is put on sys.path directly."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest

KERNEL_ROOT = Path(__file__).resolve().parents[2] / "wasm_runtime" / "kernel"
if str(KERNEL_ROOT) not in sys.path:
    sys.path.insert(0, str(KERNEL_ROOT))

from wasmbox_kernel import Kernel, KernelOptions, KernelResult  # noqa: E402
from wasmbox_kernel.protocol_data import OUTCOMES  # noqa: E402

T = TypeVar("T")

PACKAGES = {"numpy": "2.0.2", "pandas": "2.2.3", "matplotlib": "3.8.4"}


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on a thread of its own (no pytest plugin for async needed).

    After the browser tests, Playwright's sync API leaves an event loop running on the main
    thread, where asyncio.run refuses to start.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def run_cell(kernel: Kernel, code: str, **kwargs: Any) -> KernelResult:
    """Run one cell to completion."""
    result = run_async(kernel.run(code, run_id="test-run", **kwargs))
    assert result["outcome"] in OUTCOMES  # the kernel's outcomes are the protocol's
    return result


@pytest.fixture(name="run_async")
def run_async_fixture() -> Callable[[Coroutine[Any, Any, T]], T]:
    """`run_async(coroutine)`: its result, whatever loop the test session left running."""
    return run_async


@pytest.fixture
def run():
    """`run(kernel, code, on_stream=...)`: the result of one cell."""
    return run_cell


@pytest.fixture
def kernel_root() -> Path:
    return KERNEL_ROOT


@pytest.fixture
def make_kernel(tmp_path: Path):
    def make(**options: object) -> Kernel:
        options.setdefault("cwd", str(tmp_path))
        options.setdefault("available_packages", PACKAGES)
        return Kernel(KernelOptions.from_dict(options))

    return make


@pytest.fixture
def kernel(make_kernel: Callable[..., Kernel]) -> Kernel:
    return make_kernel()
