"""The FastAPI application: the JSON API plus static serving."""

from __future__ import annotations

from fastapi import FastAPI

from backend import static
from backend.routes import api_router


def create_app() -> FastAPI:
    app = FastAPI(title="wasmbox", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    app.include_router(api_router)
    app.include_router(static.router)
    return app
