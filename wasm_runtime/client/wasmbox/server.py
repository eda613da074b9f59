"""The app's own static serving (backend.app) on a loopback port, in a thread, plus the host page.

The browser loads the SDK and the runtime from here. A thread of its own keeps serving the runtime's
files while the caller's event loop is busy or blocked.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import uvicorn
from fastapi import FastAPI, Request, Response

from backend.app import create_app
from backend.settings import Settings, get_settings
from backend.static import app_page_headers, file_response, not_found, safe_file
from wasm_runtime.builder.manifest import MANIFEST
from wasmbox.errors import RuntimeMissing, WasmboxError

PAGE_DIR = Path(__file__).resolve().parent / "page"
START_TIMEOUT_S = 15.0


def client_settings(isolated: bool = True) -> Settings:
    """The environment's settings, with the loopback-only choices this server needs."""
    settings = Settings()
    return settings.model_copy(
        update={"cross_origin_isolation": isolated, "rate_limit_storage": "memory://"}
    )


def client_app(settings: Settings) -> FastAPI:
    """The backend app with these settings, plus the client's host page at /client/."""
    if not (settings.runtime_dir / MANIFEST).is_file():
        raise RuntimeMissing(
            f"the wasmbox runtime is not built in {settings.runtime_dir}: run `wasmbox build` "
            "(or `make build` in a checkout)"
        )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings

    @app.api_route("/client/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    def host_page(name: str, request: Request) -> Response:
        path = safe_file(PAGE_DIR, name)
        if path is None:
            return not_found()
        return file_response(
            request, path, app_page_headers(settings.cross_origin_isolation, settings.js_dir)
        )

    return app


class PortInUse(WasmboxError):
    """A named session's port is taken by another program."""


class LoopbackServer:
    """uvicorn serving `app` on 127.0.0.1 at `port` (a free one by default) until `stop()`."""

    def __init__(self, app: FastAPI, port: int | None = None) -> None:
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
