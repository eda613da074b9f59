"""The page server on a loopback port, in a thread: the host page, the SDK and the runtime.

The browser loads the SDK and the runtime from here. A thread of its own keeps serving the runtime's
files while the caller's event loop is busy or blocked.

The app itself comes from whoever installed this package, through the `wasmbox.page_app` entry
point (this project's is `wasm_runtime.client_page:client_page_app`, the backend's static
serving): the client never imports the backend, and the backend never imports the client.
"""

from __future__ import annotations

import socket
import threading
import time
from importlib.metadata import entry_points
from pathlib import Path
from typing import Protocol

import uvicorn
from starlette.types import ASGIApp

from wasmbox.errors import WasmboxError

PAGE_DIR = Path(__file__).resolve().parent / "page"
PAGE_APP_GROUP = "wasmbox.page_app"
START_TIMEOUT_S = 15.0


class PageApp(Protocol):
    """Makes the ASGI app that serves `page_dir` at /client/, the SDK at /sdk/ and the runtime at
    /runtime/, with COOP/COEP on the page when `isolated`; raises RuntimeMissing if unbuilt."""

    def __call__(self, isolated: bool, page_dir: Path) -> ASGIApp: ...


def installed_page_app() -> PageApp:
    """The page server the installation registered under the `wasmbox.page_app` entry point."""
    found = list(entry_points(group=PAGE_APP_GROUP))
    if not found:
        raise WasmboxError(
            f"no page server is installed (entry point group {PAGE_APP_GROUP!r}): reinstall "
            "wasmbox (`pip install -e .` or `make setup` in a checkout)"
        )
    factory: PageApp = found[0].load()
    return factory


def client_app(isolated: bool = True, page_app: PageApp | None = None) -> ASGIApp:
    """The app the client's browser loads its page from."""
    return (page_app or installed_page_app())(isolated, PAGE_DIR)


class PortInUse(WasmboxError):
    """A named session's port is taken by another program."""


class LoopbackServer:
    """uvicorn serving `app` on 127.0.0.1 at `port` (a free one by default) until `stop()`."""

    def __init__(self, app: ASGIApp, port: int | None = None) -> None:
        with socket.socket() as sock:
            # As uvicorn binds: a previous run's connections in TIME_WAIT do not hold the port.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port or 0))
            except OSError:
                raise PortInUse(
                    f"127.0.0.1:{port} is in use; the session's saved sandboxes belong to that "
                    "origin, so stop whatever listens there and start again"
                ) from None
            self.port: int = sock.getsockname()[1]
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="wasmbox-server", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start serving; blocks until the port answers (a fraction of a second)."""
        self.thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the wasmbox loopback server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
