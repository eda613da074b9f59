"""The FastAPI application: the JSON API plus static serving."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from backend import static
from backend.cors import ApiCors
from backend.lifespan import lifespan_for
from backend.proxy.errors import ProxyError, handle_proxy_error
from backend.routes import api_router


def create_app(*, upstream_transport: httpx.AsyncBaseTransport | None = None) -> FastAPI:
    """The app. `upstream_transport` replaces the network for the LLM client (tests)."""
    app = FastAPI(
        title="wasmbox",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        redirect_slashes=False,  # a redirect under /runtime/ could leave the sandbox's CSP paths
        lifespan=lifespan_for(upstream_transport),
    )
    app.add_middleware(ApiCors)
    app.add_exception_handler(ProxyError, handle_proxy_error)
    app.include_router(api_router)
    app.include_router(static.router)
    return app
