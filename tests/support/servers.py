"""The real app on a loopback port, in a thread, for browser tests and benchmarks."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from backend.app import create_app
from backend.settings import Settings, get_settings

PAGES_DIR = Path(__file__).resolve().parent.parent / "browser" / "pages"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_app(settings: Settings) -> FastAPI:
    """The production app with its settings replaced, plus the tests' own pages at /test-pages/."""
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings
    app.mount("/test-pages", StaticFiles(directory=PAGES_DIR), name="test-pages")
    return app


@contextmanager
def running(app: FastAPI) -> Iterator[str]:
    """Serve `app` on a free loopback port; yield its base URL (no trailing slash)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
