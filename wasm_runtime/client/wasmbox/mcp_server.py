"""`wasmbox mcp`: the sandbox as an MCP server over stdio (tools: run_python, upload_file,
download_file, list_files, reset). One sandbox lives as long as the server, so state is kept
across calls; the browser starts with the server, before the first call asks for it.

With `--session NAME` the sandbox is a named session (wasmbox.named): saved after each call and
back, variables and files, when a server with that name starts again.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult, ContentBlock, ImageContent, TextContent

from wasmbox.errors import WasmboxError
from wasmbox.host import Host
from wasmbox.named import NamedSession, SessionInUse
from wasmbox.report import result_text
from wasmbox.sandbox import Sandbox

INSTRUCTIONS = (
    "Runs Python 3.12 (Pyodide: numpy, pandas, matplotlib, scipy, scikit-learn, sympy…) in a "
    "browser sandbox with no network. Variables, imports and files persist across run_python calls "
    "until reset(). Show plots with plt.show(): they come back as images."
)


class Session:
    """The server's one sandbox, started in the background and replaced by `reset()`.

    Without a name the sandboxes share one host for the server's life; a named session's sandbox
    brings its own browser (on the session's profile) and is saved as it goes.
    """

    def __init__(
        self, timeout: float, name: str | None = None, data_dir: Path | None = None
    ) -> None:
        self.timeout = timeout
        self.name = name
        self.data_dir = data_dir
        self._host: Host | None = None
        self._sandbox: Sandbox | None = None
        self._lock = asyncio.Lock()
        self.started = ""  # how a named session began, said once in the first tool answer

    async def sandbox(self) -> Sandbox:
        async with self._lock:
            if self._sandbox is None or self._sandbox.closed:
                self._sandbox = await self._open()
            return self._sandbox

    async def _open(self) -> Sandbox:
        if self.name is not None:
            opened = await Sandbox.create(
                timeout=self.timeout, session=self.name, data_dir=self.data_dir
            )
            self.started = started_note(self.name, opened)
            return opened
        if self._host is None:
            self._host = await Host.start()
        return await Sandbox.create(timeout=self.timeout, host=self._host)

    def take_note(self) -> str:
        note, self.started = self.started, ""
        return note

    async def reset(self) -> None:
        async with self._lock:
            if self._sandbox is not None:
                if self.name is not None and not self._sandbox.closed:
                    await self._sandbox.delete()  # a named session forgets what it saved
                else:
                    await self._sandbox.close()
                self._sandbox = None
        await self.sandbox()
        self.started = ""

    async def close(self) -> None:
        async with self._lock:
            try:
                if self._sandbox is not None:
                    await self._sandbox.close()  # a persisted sandbox finishes its save first
            finally:
                if self._host is not None:
                    await self._host.close()
                self._host = self._sandbox = None


def started_note(name: str, sandbox: Sandbox) -> str:
    if sandbox.resumed:
        lost = ", ".join(item.get("name", "?") for item in sandbox.not_restored)
        return f"[session {name!r} resumed" + (f"; not restored: {lost}]" if lost else "]")
    if sandbox.replaced:
        return f"[session {name!r}: the saved sandbox was gone (deleted or expired); started empty]"
    return f"[session {name!r} started]"


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
            # The server's default, not a resumed sandbox's saved one: --timeout is this server's.
            result = await sandbox.execute(code, timeout=timeout or session.timeout)
        except (WasmboxError, ValueError, TypeError) as exc:
            return text(f"wasmbox could not run the code: {exc}", error=True)
        report = result_text(result)
        if note := session.take_note():
            report = f"{note}\n{report}"
        content: list[ContentBlock] = [TextContent(type="text", text=report)]
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


def serve(timeout: float = 30, session: str | None = None, data_dir: Path | None = None) -> int:
    """Serve MCP on stdin/stdout until the client closes it. A session another process has open
    (or a bad name) is refused here, before the client connects, with exit status 2."""
    if session is not None:
        try:
            NamedSession.claim(session, data_dir).release()
        except (SessionInUse, ValueError) as exc:
            print(f"wasmbox mcp: {exc}", file=sys.stderr)
            return 2
    build_server(Session(timeout, session, data_dir)).run("stdio")
    return 0
