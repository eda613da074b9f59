"""The Python client's page server, composed from the backend's app: neither package imports the
other (tests/backend/test_import_graph.py), so the client finds this through the
`wasmbox.page_app` entry point in pyproject.toml (wasmbox/server.py)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request, Response

from backend.app import create_app
from backend.settings import Settings, get_settings
from backend.static import app_page_headers, file_response, not_found, safe_file
from wasm_runtime.builder.manifest import MANIFEST
from wasmbox.errors import RuntimeMissing


def client_page_app(isolated: bool, page_dir: Path) -> FastAPI:
    """The Python client's page server: the backend app (SDK, runtime, their headers) with the
    environment's settings, loopback-only choices, and the client's host page at /client/."""
    settings = Settings().model_copy(
        update={"cross_origin_isolation": isolated, "rate_limit_storage": "memory://"}
    )
    if not (settings.runtime_dir / MANIFEST).is_file():
        raise RuntimeMissing(
            f"the wasmbox runtime is not built in {settings.runtime_dir}: run `wasmbox build` "
            "(or `make build` in a checkout)"
        )
    app = create_app()
    app.dependency_overrides[get_settings] = lambda: settings

    @app.api_route("/client/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    def host_page(name: str, request: Request) -> Response:
        path = safe_file(page_dir, name)
        if path is None:
            return not_found()
        return file_response(
            request, path, app_page_headers(settings.cross_origin_isolation, settings.js_dir)
        )

    return app
