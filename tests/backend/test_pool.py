"""The sharded upstream pool: the first shard fills before the next, and every slot comes back."""

from __future__ import annotations

import httpx
import pytest

from backend.proxy.pool import ShardedTransport

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Body(httpx.AsyncByteStream):
    """A body still open when the response is handed over, as a streamed upstream answer is."""

    async def __aiter__(self):
        yield b"ok"


def counting_transport(seen: list[str]) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        return httpx.Response(200, stream=Body())

    return httpx.MockTransport(handler)


async def test_sharded_pool_fills_the_first_shard_then_spills() -> None:
    pool = ShardedTransport(10, shard_size=2)
    assert len(pool.shards) == 5
    seen: list[str] = []
    pool.shards = [counting_transport(seen) for _ in pool.shards]  # type: ignore[misc]
    pool.active = [0] * len(pool.shards)
    request = httpx.Request("GET", "http://upstream.test/x")
    responses = [await pool.handle_async_request(request) for _ in range(3)]
    assert pool.active == [2, 1, 0, 0, 0]
    await responses[0].aclose()
    await responses[0].aclose()  # closing twice releases once
    assert pool.active == [1, 1, 0, 0, 0]
    assert pool.pick() == 0  # room again in the first shard, so keep-alive reuse stays there
    for response in responses[1:]:
        await response.aclose()
    assert pool.active == [0] * 5
    assert seen == ["/x"] * 3


async def test_sharded_pool_frees_the_slot_when_the_request_fails() -> None:
    pool = ShardedTransport(4, shard_size=2)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    pool.shards = [httpx.MockTransport(refuse) for _ in pool.shards]  # type: ignore[misc]
    with pytest.raises(httpx.ConnectError):
        await pool.handle_async_request(httpx.Request("GET", "http://upstream.test/"))
    assert pool.active == [0, 0]
