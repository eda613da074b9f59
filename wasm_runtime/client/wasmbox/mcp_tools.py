"""The MCP tools of `wasmbox mcp` (run_python, upload_file, download_file, list_files, reset) on
the server's one `Session` (wasmbox.mcp_server). Its own module: the `mcp` package takes longer to
import than the browser takes to start, so the server imports it while the browser launches."""

from __future__ import annotations

import base64
import binascii

from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult, ContentBlock, ImageContent, TextContent

from wasmbox.errors import WasmboxError
from wasmbox.mcp_server import INSTRUCTIONS, Session
from wasmbox.report import result_text


def text(message: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], isError=error)


def build_server(session: Session) -> FastMCP:
    """The FastMCP server whose tools use `session` (its caller starts and closes the session)."""
    server = FastMCP("wasmbox", instructions=INSTRUCTIONS, log_level="WARNING")

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
