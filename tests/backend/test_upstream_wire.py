"""The connection to the LLM server as it really fails: real sockets, the production transport.

The retry rule is the point: a request is sent again only when no connection was made, never
when the server may already hold the prompt. And a proxy holding the server's key keeps no
cookies and follows no redirects.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from backend.proxy.transport import AiohttpTransport
from tests.backend.conftest import CHAT, MakeClient, chat_body
from tests.backend.redis_server import free_port
from tests.support.fake_openai import FakeOpenAI, Reply, completion_reply
from tests.support.own_loop import run_in_own_loop


class RawServer:
    """A bare TCP server on loopback; each connection goes to `handle` in its own thread."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self.serve, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return  # closed by stop()
            threading.Thread(target=self.handle, args=(connection,), daemon=True).start()

    def handle(self, connection: socket.socket) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        self.listener.close()


class HangUpServer(RawServer):
    """Reads a request's first bytes, then closes without a word."""

    def __init__(self) -> None:
        self.requests = 0
        super().__init__()

    def handle(self, connection: socket.socket) -> None:
        with connection:
            if connection.recv(65536).startswith(b"POST "):
                self.requests += 1


class DropsSecondRequest(RawServer):
    """Answers the first request on a connection and keeps it alive; a second request on that
    connection finds it closed, as when a server's keep-alive timeout races a new request."""

    def __init__(self) -> None:
        self.requests_per_connection: list[int] = []
        super().__init__()

    def handle(self, connection: socket.socket) -> None:
        index = len(self.requests_per_connection)
        self.requests_per_connection.append(0)
        with connection, connection.makefile("rb") as reader:
            while request_line := reader.readline():
                length = 0
                while (header := reader.readline()) not in (b"\r\n", b""):
                    if header.lower().startswith(b"content-length:"):
                        length = int(header.split(b":")[1])
                reader.read(length)
                self.requests_per_connection[index] += 1
                if self.requests_per_connection[index] > 1 or not request_line.startswith(b"POST"):
                    return  # closed without a word
                body = json.dumps({"choices": [{"message": {"content": "hi"}}]}).encode()
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )


class CutsStreamShort(RawServer):
    """Answers with two chunks of a chunked stream and closes before the last chunk, all in one
    write: the data and the connection's end reach the proxy together."""

    CHUNKS = (b"data: one\n\n", b"data: two\n\n")

    def handle(self, connection: socket.socket) -> None:
        with connection:
            connection.recv(65536)
            framed = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in self.CHUNKS)
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + framed
            )


@pytest.fixture
def hang_up_server() -> Iterator[HangUpServer]:
    server = HangUpServer()
    yield server
    server.stop()


@pytest.mark.parametrize("stream", [pytest.param(False, id="json"), pytest.param(True, id="sse")])
def test_a_server_that_took_the_request_and_hung_up_is_not_asked_again(
    make_client: MakeClient, hang_up_server: HangUpServer, stream: bool
) -> None:
    client = make_client(openai_base_url=hang_up_server.base_url, upstream_connect_retries=2)
    response = client.post(CHAT, json=chat_body(stream=stream))
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "upstream_malformed"
    assert hang_up_server.requests == 1  # the prompt reached it once, and only once


def test_a_kept_alive_connection_closed_under_a_request_is_retried_on_a_new_one(
    make_client: MakeClient,
) -> None:
    server = DropsSecondRequest()
    try:
        client = make_client(openai_base_url=server.base_url, upstream_connect_retries=1)
        assert client.post(CHAT, json=chat_body()).status_code == 200
        assert client.post(CHAT, json=chat_body()).status_code == 200  # reused, dropped, retried
        assert server.requests_per_connection == [2, 1]
    finally:
        server.stop()


def test_data_that_arrived_before_a_cut_is_relayed_before_the_error() -> None:
    async def read_late() -> tuple[bytes, BaseException | None]:
        transport = AiohttpTransport(max_connections=1)
        request = httpx.Request("POST", f"{server.base_url}/chat/completions", content=b"{}")
        response = await transport.handle_async_request(request)
        await asyncio.sleep(0.3)  # a busy relay: the cut is already known when it reads
        received, error = b"", None
        try:
            async for data in response.stream:  # type: ignore[union-attr]
                received += data
        except httpx.TransportError as exc:
            error = exc
        await transport.aclose()
        return received, error

    server = CutsStreamShort()
    try:
        received, error = run_in_own_loop(read_late())
    finally:
        server.stop()
    assert received == b"".join(CutsStreamShort.CHUNKS)  # no token the user paid for is lost
    assert isinstance(error, httpx.RemoteProtocolError)


def test_a_refused_connection_is_retried_then_reported(make_client: MakeClient) -> None:
    closed = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    client = make_client(openai_base_url=closed, upstream_connect_retries=1)
    response = client.post(CHAT, json=chat_body())
    assert response.status_code == 502
    assert response.json()["error"]["type"] == "upstream_unreachable"


def test_cookies_from_the_llm_server_are_not_kept_for_the_next_user(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    with_cookie = completion_reply()
    with_cookie.headers = {"set-cookie": "session=alice-secret; Path=/"}
    fake_upstream.script(with_cookie, completion_reply())
    # By name: cookie jars ignore cookies from bare IP addresses anyway.
    client = make_client(openai_base_url=fake_upstream.base_url.replace("127.0.0.1", "localhost"))
    assert client.post(CHAT, json=chat_body()).status_code == 200
    assert client.post(CHAT, json=chat_body()).status_code == 200
    assert "cookie" not in fake_upstream.received[1].headers


@pytest.mark.parametrize("stream", [pytest.param(False, id="json"), pytest.param(True, id="sse")])
def test_a_redirect_from_the_llm_server_is_not_followed(
    make_client: MakeClient, fake_upstream: FakeOpenAI, stream: bool
) -> None:
    with FakeOpenAI() as elsewhere:
        target = f"{elsewhere.base_url}/chat/completions"
        fake_upstream.script(Reply(status=307, headers={"location": target}))
        response = make_client().post(CHAT, json=chat_body(stream=stream))
        assert response.status_code == 502
        assert elsewhere.received == []  # the key and the prompt went nowhere else


def test_the_upstream_gets_the_body_as_json_with_the_length_it_says(
    make_client: MakeClient, fake_upstream: FakeOpenAI
) -> None:
    make_client().post(CHAT, json=chat_body(messages=[{"role": "user", "content": "héllo ✓"}]))
    received = fake_upstream.received[0]
    assert received.headers["content-type"] == "application/json"
    assert int(received.headers["content-length"]) == len(received.body)
    assert received.json["messages"][0]["content"] == "héllo ✓"
