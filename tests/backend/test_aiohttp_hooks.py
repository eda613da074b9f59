"""The aiohttp internals backend/proxy/transport.py reads (written against aiohttp 3.14):
a StreamReader keeps unread data in `_buffer` (a deque of bytes) from `_buffer_offset` on."""

from __future__ import annotations

import asyncio
from collections import deque

import aiohttp
from aiohttp.base_protocol import BaseProtocol

from backend.proxy.transport import _unread
from tests.support.own_loop import run_in_own_loop


def test_stream_reader_keeps_its_unread_data_where_the_transport_looks() -> None:
    async def check() -> None:
        loop = asyncio.get_running_loop()
        reader = aiohttp.StreamReader(BaseProtocol(loop), limit=2**16, loop=loop)
        reader.feed_data(b"hello ")
        reader.feed_data(b"world")
        assert isinstance(reader._buffer, deque)
        assert reader._buffer_offset == 0
        await reader.readexactly(2)
        assert reader._buffer_offset == 2
        assert _unread(reader) == b"llo world"

    run_in_own_loop(check())
