"""The hand-over from the upstream reader to the browser writer: order kept, piles joined."""

from __future__ import annotations

import anyio
import pytest

from backend.proxy.coalesce import Coalescer

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_coalescer_keeps_order_and_joins_what_piled_up() -> None:
    buffer = Coalescer()
    for piece in (b"a", b"b", b"c"):
        await buffer.put(piece)
    assert await buffer.take() == b"abc"
    await buffer.put(b"d")
    buffer.end()
    assert await buffer.take() == b"d"
    assert await buffer.take() is None


async def test_coalescer_hands_over_each_chunk_when_the_writer_keeps_up() -> None:
    buffer = Coalescer()
    taken: list[bytes] = []

    async def writer() -> None:
        while (data := await buffer.take()) is not None:
            taken.append(data)

    async with anyio.create_task_group() as group:
        group.start_soon(writer)
        for index in range(5):
            await buffer.put(b"%d" % index)
            await anyio.sleep(0.01)  # the writer runs between two chunks
        buffer.end()
    assert taken == [b"0", b"1", b"2", b"3", b"4"]


async def test_coalescer_holds_the_reader_back_at_high_water() -> None:
    buffer = Coalescer(high_water=4)
    await buffer.put(b"1234")
    with anyio.move_on_after(0.05) as waited:
        await buffer.put(b"5")
    assert waited.cancelled_caught  # no writer took anything: the reader waits
    assert await buffer.take() == b"1234"
    await buffer.put(b"5")
    assert await buffer.take() == b"5"
