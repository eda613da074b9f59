"""`wasmbox mcp` through an MCP client from the `mcp` package, over stdio, as any client uses it."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import sys
import threading
from collections.abc import Iterator

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, ImageContent, TextContent

from tests.client.conftest import Loop

pytestmark = pytest.mark.browser

SERVER = StdioServerParameters(
    command=sys.executable,
    args=["-c", "from wasm_runtime.cli import main; main(['mcp', '--timeout', '300'])"],
)


class McpClient:
    """One `wasmbox mcp` process for the module, its session held open by one task on the loop.

    One task: anyio's scopes in the stdio client must close in the task that opened them.
    """

    def __init__(self, loop: Loop, server: StdioServerParameters = SERVER) -> None:
        self.loop = loop
        self.server = server
        self.session: ClientSession | None = None
        self._ready = threading.Event()
        self._stop = asyncio.Event()
        self._held: concurrent.futures.Future[None] | None = None

    async def _hold(self) -> None:
        opened = stdio_client(self.server)
        async with opened as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            self.session = session
            self._ready.set()
            await self._stop.wait()

    def open(self) -> None:
        self._held = asyncio.run_coroutine_threadsafe(self._hold(), self.loop.loop)
        while not self._ready.wait(0.1):
            if self._held.done():
                self._held.result()  # raises what stopped it

    def close(self) -> None:
        assert self._held is not None
        self.loop.loop.call_soon_threadsafe(self._stop.set)
        self._held.result(timeout=60)

    def call(self, tool: str, **arguments: object) -> CallToolResult:
        assert self.session is not None
        return self.loop(self.session.call_tool(tool, arguments))


def texts(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


@pytest.fixture(scope="module")
def mcp(loop: Loop, runtime_built: None) -> Iterator[McpClient]:
    client = McpClient(loop)
    client.open()
    yield client
    client.close()


def test_the_tools_are_listed(mcp: McpClient) -> None:
    assert mcp.session is not None
    listed = mcp.loop(mcp.session.list_tools())
    tools = {t.name: t for t in listed.tools}
    assert set(tools) == {"run_python", "upload_file", "download_file", "list_files", "reset"}
    assert set(tools["run_python"].inputSchema["properties"]) == {"code", "timeout"}
    assert tools["run_python"].inputSchema["required"] == ["code"]


def test_state_is_kept_across_calls(mcp: McpClient) -> None:
    first = mcp.call("run_python", code="import numpy as np\nseen = np.arange(4)\nprint('set')")
    assert not first.isError and "stdout:\nset" in texts(first)
    second = mcp.call("run_python", code="int(seen.sum())")
    assert not second.isError and "value: 6" in texts(second)


def test_a_plot_comes_back_as_an_image(mcp: McpClient) -> None:
    code = "import matplotlib.pyplot as plt\nplt.plot([3, 1, 2])\nplt.show()"
    result = mcp.call("run_python", code=code)
    images = [c for c in result.content if isinstance(c, ImageContent)]
    assert len(images) == 1 and images[0].mimeType == "image/png"
    assert base64.b64decode(images[0].data).startswith(b"\x89PNG")


def test_an_error_is_reported_with_its_traceback(mcp: McpClient) -> None:
    result = mcp.call("run_python", code="{}['missing']")
    assert result.isError
    assert "OUTCOME_FAILED" in texts(result) and "KeyError: 'missing'" in texts(result)


def test_a_deadline_is_an_error_and_the_server_stays_alive(mcp: McpClient) -> None:
    result = mcp.call("run_python", code="while True: pass", timeout=1)
    assert result.isError and "OUTCOME_DEADLINE_EXCEEDED" in texts(result)
    after = mcp.call("run_python", code="1 + 1")
    assert not after.isError and "value: 2" in texts(after)


def test_a_network_attempt_is_blocked(mcp: McpClient) -> None:
    code = (
        "import urllib.request\n"
        "try:\n"
        "    urllib.request.urlopen('http://example.com', timeout=5).read()\n"
        "    print('reached')\n"
        "except Exception as exc:\n"
        "    print('blocked:', type(exc).__name__)\n"
    )
    result = mcp.call("run_python", code=code)
    assert "blocked:" in texts(result) and "reached" not in texts(result)


def test_files_up_listed_and_down(mcp: McpClient) -> None:
    payload = base64.b64encode(b"x,y\n1,2\n").decode()
    assert not mcp.call("upload_file", path="data.csv", content_base64=payload).isError
    mcp.call("run_python", code="open('sum.txt', 'w').write(str(sum(range(5))))")
    assert "data.csv\t8\t" in texts(mcp.call("list_files"))
    down = mcp.call("download_file", path="sum.txt")
    assert base64.b64decode(texts(down)) == b"10"


def test_bad_input_is_an_error_not_a_crash(mcp: McpClient) -> None:
    assert mcp.call("upload_file", path="a.txt", content_base64="not base64!").isError
    escape = mcp.call("upload_file", path="../a.txt", content_base64="eA==")
    assert escape.isError and "invalid file name" in texts(escape)
    assert mcp.call("download_file", path="nowhere.txt").isError


def test_reset_starts_over(mcp: McpClient) -> None:
    mcp.call("run_python", code="before_reset = 1")
    assert not mcp.call("reset").isError
    result = mcp.call("run_python", code="before_reset")
    assert result.isError and "NameError" in texts(result)
    assert texts(mcp.call("list_files")) == "(no files)"
