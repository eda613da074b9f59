"""`wasmbox mcp`: the sandbox as an MCP server over stdio (tools: run_python, upload_file,
download_file, list_files, reset). One sandbox lives as long as the server, so state is kept
across calls; the browser starts with the server, before the first call asks for it.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult, ContentBlock, ImageContent, TextContent

from wasmbox.errors import WasmboxError
from wasmbox.host import Host
from wasmbox.report import result_text
from wasmbox.sandbox import Sandbox

INSTRUCTIONS = (
    "Runs Python 3.12 (Pyodide: numpy, pandas, matplotlib, scipy, scikit-learn, sympy…) in a "
    "browser sandbox with no network. Variables, imports and files persist across run_python calls "
    "until reset(). Show plots with plt.show(): they come back as images."
)


class Session:
    """The server's one sandbox, started in the background and replaced by `reset()`."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._host: Host | None = None
        self._sandbox: Sandbox | None = None
        self._lock = asyncio.Lock()

    async def sandbox(self) -> Sandbox:
        async with self._lock:
            if self._host is None:
                self._host = await Host.start()
            if self._sandbox is None or self._sandbox.closed:
                self._sandbox = await Sandbox.create(timeout=self.timeout, host=self._host)
            return self._sandbox

    async def reset(self) -> None:
        async with self._lock:
            if self._sandbox is not None:
                await self._sandbox.close()
                self._sandbox = None
        await self.sandbox()

    async def close(self) -> None:
        async with self._lock:
            if self._host is not None:
                await self._host.close()
            self._host = self._sandbox = None


def text(message: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], isError=error)


def build_server(session: Session) -> FastMCP:
    @asynccontextmanager
    async def lifespan(_: FastMCP) -> AsyncIterator[None]:
        warm = asyncio.create_task(session.sandbox())
        try:
            yield
        finally:
            warm.cancel()
            await session.close()

    server = FastMCP("wasmbox", instructions=INSTRUCTIONS, lifespan=lifespan, log_level="WARNING")

    @server.tool()
    async def run_python(code: str, timeout: float | None = None) -> CallToolResult:  # noqa: ASYNC109
        """Run Python code in the sandbox; the last expression's value is returned like a notebook.

        `timeout` is in seconds (default: the server's). Output, value and error come back as text,
        plots as images. Errors, deadlines and blocked network calls are reported, not raised.
        """
        try:
            sandbox = await session.sandbox()
            result = await sandbox.execute(code, timeout=timeout)
        except (WasmboxError, ValueError, TypeError) as exc:
            return text(f"wasmbox could not run the code: {exc}", error=True)
        content: list[ContentBlock] = [TextContent(type="text", text=result_text(result))]
        content += [
            ImageContent(type="image", data=d.data, mimeType=d.mime)
            for d in result.images()
            if d.mime in ("image/png", "image/jpeg", "image/gif", "image/webp")
        ]
        return CallToolResult(content=content, isError=not result.ok)

    @server.tool()
    async def upload_file(path: str, content_base64: str) -> CallToolResult:
        """Write a file into the sandbox (a relative path, e.g. data.csv), given as base64."""
        try:
            data = base64.b64decode(content_base64, validate=True)
        except binascii.Error:
            return text("content_base64 is not valid base64", error=True)
        try:
            await (await session.sandbox()).write_file(path, data)
        except WasmboxError as exc:
            return text(str(exc), error=True)
        return text(f"wrote {path} ({len(data)} bytes)")

    @server.tool()
    async def download_file(path: str) -> CallToolResult:
        """Read a file from the sandbox; returns its bytes as base64 (images also as an image)."""
        try:
            sandbox = await session.sandbox()
            data = await sandbox.read_file(path)
        except WasmboxError as exc:
            return text(str(exc), error=True)
        encoded = base64.b64encode(data).decode("ascii")
        content: list[ContentBlock] = [TextContent(type="text", text=encoded)]
        mime = next((f.mime for f in await sandbox.list_files() if f.path == path), "")
        if mime in ("image/png", "image/jpeg", "image/gif", "image/webp"):
            content.append(ImageContent(type="image", data=encoded, mimeType=mime))
        return CallToolResult(content=content)

    @server.tool()
    async def list_files() -> CallToolResult:
        """The sandbox's files: path, size in bytes and type, one per line."""
        try:
            files = await (await session.sandbox()).list_files()
        except WasmboxError as exc:
            return text(str(exc), error=True)
        listing = "\n".join(f"{f.path}\t{f.size}\t{f.mime}" for f in files)
        return text(listing or "(no files)")

    @server.tool()
    async def reset() -> CallToolResult:
        """Start over: a fresh interpreter with no variables and no files."""
        try:
            await session.reset()
        except WasmboxError as exc:
            return text(str(exc), error=True)
        return text("the sandbox was reset: no variables, no files")

    return server


def serve(timeout: float = 30) -> int:
    """Serve MCP on stdin/stdout until the client closes it."""
    build_server(Session(timeout)).run("stdio")
    return 0
