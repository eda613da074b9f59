"""`wasmbox mcp`: the sandbox as an MCP server over stdio (tools: run_python, upload_file,
download_file, list_files, reset). One sandbox lives as long as the server, so state is kept
across calls; the browser starts with the server, before the first call asks for it.

With `--session NAME` the sandbox is a named session (wasmbox.named): saved after each call and
back, variables and files, when a server with that name starts again.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wasmbox.host import Host
from wasmbox.named import NamedSession, SessionInUse
from wasmbox.sandbox import Sandbox

if TYPE_CHECKING:
    from mcp.server.fastmcp import FastMCP

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


def serve(timeout: float = 30, session: str | None = None, data_dir: Path | None = None) -> int:
    """Serve MCP on stdin/stdout until the client closes it. A session another process has open
    (or a bad name) is refused here, before the client connects, with exit status 2."""
    if session is not None:
        try:
            NamedSession.claim(session, data_dir).release()
        except (SessionInUse, ValueError) as exc:
            print(f"wasmbox mcp: {exc}", file=sys.stderr)
            return 2
    asyncio.run(serve_stdio(Session(timeout, session, data_dir)))
    return 0


async def serve_stdio(session: Session) -> None:
    """The browser starts first; the MCP package is imported meanwhile, then serves stdin/stdout
    (a client's first messages wait in the pipe)."""
    warm = asyncio.create_task(session.sandbox())
    try:
        server = await asyncio.to_thread(tools_server, session)
        await server.run_stdio_async()
    finally:
        warm.cancel()
        await session.close()


def tools_server(session: Session) -> FastMCP:
    from wasmbox.mcp_tools import build_server

    return build_server(session)
