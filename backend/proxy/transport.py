"""httpx's transport interface over aiohttp's client, for the connections to the LLM server.

httpx stays the proxy's vocabulary (requests, responses, errors, and `httpx.MockTransport` in the
tests); only the wire is aiohttp's. Its C HTTP parser and plain asyncio streams cost far less per
chunk than httpcore's pure-Python h11 and anyio layers, and its pool does not revisit every
connection on each request: at 500 concurrent streams the proxy's CPU fell from 6.9 s to about
3.5 s (tests/bench/proxy_load.py, with the one-task relay of streaming.py).

The errors are mapped here rather than by a generic adapter because the proxy's retry rule
depends on them: `ConnectError`/`ConnectTimeout` mean nothing reached the server and may be
retried; a connection the server dropped after taking the request must not be, or a prompt could
reach the model twice. One exception, as browsers make it: a kept-alive connection that the
server closed, idle, just as the request went out (a race with its keep-alive timeout) ends
without a byte of answer; that request is retried on a new connection (`StaleConnection`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace

import aiohttp
import httpx

# Most specific first: several of these subclass one another.
ERRORS: tuple[tuple[type[BaseException], type[httpx.TransportError]], ...] = (
    (aiohttp.ConnectionTimeoutError, httpx.ConnectTimeout),  # no connection within the time
    (aiohttp.ClientConnectorError, httpx.ConnectError),  # refused, DNS, TLS: nothing sent
    (aiohttp.SocketTimeoutError, httpx.ReadTimeout),  # silent between two reads
    (aiohttp.ServerTimeoutError, httpx.ReadTimeout),
    (aiohttp.ServerDisconnectedError, httpx.RemoteProtocolError),  # closed mid-answer
    (aiohttp.ClientPayloadError, httpx.RemoteProtocolError),  # body cut short or garbled
    (aiohttp.ClientResponseError, httpx.RemoteProtocolError),  # not valid HTTP
    (aiohttp.ClientError, httpx.ReadError),
)


class StaleConnection(httpx.ConnectError):
    """A reused connection was closed by the server before any answer: the request never
    reached the model, so it is retried like a failed connect."""


async def _note_reuse(
    _session: aiohttp.ClientSession, context: SimpleNamespace, _params: object
) -> None:
    context.trace_request_ctx["reused"] = True


@contextlib.contextmanager
def httpx_errors() -> Iterator[None]:
    try:
        yield
    except aiohttp.ClientError as exc:
        for source, target in ERRORS:
            if isinstance(exc, source):
                raise target(str(exc) or type(exc).__name__) from exc
        raise  # pragma: no cover - ERRORS ends with the base class


def _unread(content: aiohttp.StreamReader) -> bytes:
    """What arrived before the connection broke and was not read yet.

    aiohttp reports a broken connection ahead of the data already buffered (every read checks
    the error first), so a relay that was busy when a stream was cut would drop its last tokens.
    There is no public accessor to the buffer (private since aiohttp 3.x; checked against 3.14):
    tests/backend/test_aiohttp_hooks.py fails if aiohttp renames these attributes.
    """
    pieces = list(getattr(content, "_buffer", ()))
    if pieces:
        pieces[0] = pieces[0][getattr(content, "_buffer_offset", 0) :]
    return b"".join(pieces)


class AiohttpBody(httpx.AsyncByteStream):
    """A response body as aiohttp buffers it: each read takes everything that has arrived, so a
    reader that falls behind gets the backlog in one piece (one write to the browser, not many)."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        content = self.response.content
        try:
            async for data in content.iter_any():
                yield data
        except aiohttp.ClientError as exc:
            if arrived := _unread(content):
                yield arrived
            with httpx_errors():
                raise exc

    async def aclose(self) -> None:
        if self.response.content.at_eof():
            self.response.release()  # read to the end: the connection goes back to the pool
        else:
            self.response.close()  # abandoned mid-stream: the server sees the disconnect


class AiohttpTransport(httpx.AsyncBaseTransport):
    """One aiohttp session, opened on first use (it needs the running event loop)."""

    def __init__(self, max_connections: int, *, keepalive_s: float = 15.0) -> None:
        self.max_connections = max_connections
        self.keepalive_s = keepalive_s
        self.session: aiohttp.ClientSession | None = None

    def open_session(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(
            limit=self.max_connections, limit_per_host=0, keepalive_timeout=self.keepalive_s
        )
        tracing = aiohttp.TraceConfig()
        tracing.on_connection_reuseconn.append(_note_reuse)
        # trust_env=False: no proxy variables or .netrc may reroute or re-authenticate the key's
        # calls. No decompression: the body is relayed as the server sent it.
        return aiohttp.ClientSession(
            connector=connector,
            trace_configs=[tracing],
            trust_env=False,
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),  # one server-wide client: no cookie crosses users
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.session is None:
            self.session = self.open_session()
        timeout = request.extensions.get("timeout", {})
        connection: dict[str, bool] = {}
        with httpx_errors(), self._stale_if_reused(connection):
            response = await self.session.request(
                request.method,
                str(request.url),
                headers=list(request.headers.multi_items()),
                data=await request.aread(),
                allow_redirects=False,  # a proxy with the server's key follows no one
                skip_auto_headers=("User-Agent", "Accept-Encoding", "Content-Type"),
                timeout=aiohttp.ClientTimeout(
                    total=None,
                    connect=timeout.get("pool"),
                    sock_connect=timeout.get("connect"),
                    sock_read=timeout.get("read"),
                ),
                trace_request_ctx=connection,
            )
        return httpx.Response(
            response.status,
            headers=list(response.raw_headers),
            stream=AiohttpBody(response),
            request=request,
        )

    @staticmethod
    @contextlib.contextmanager
    def _stale_if_reused(connection: dict[str, bool]) -> Iterator[None]:
        try:
            yield
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
            if connection.get("reused"):
                raise StaleConnection("a kept-alive connection was closed by the server") from exc
            raise

    async def aclose(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None
