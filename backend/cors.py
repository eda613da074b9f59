"""CORS for the JSON API, granted only to the configured embed origins (never `*`).

Static files set their own cross-origin headers (see security_headers.py); this middleware only
looks at `/api/` paths. Origins are read per request so test overrides of the settings apply.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from backend.lifespan import settings_of
from backend.proxy.errors import CrossSiteRefused, error_response

ALLOWED_METHODS = "GET, POST"
ALLOWED_HEADERS = "Authorization, Content-Type, X-Wasmbox-Token"
PREFLIGHT_MAX_AGE_S = "600"


class ApiCors:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        allowed = origin is not None and origin in settings_of(scope["app"]).cors_origins
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            await preflight(origin if allowed else None)(scope, receive, send)
            return
        if not allowed or origin is None:
            await self.app(scope, receive, send)
            return

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                response_headers["Access-Control-Allow-Origin"] = origin
                response_headers.add_vary_header("Origin")
            await send(message)

        await self.app(scope, receive, send_with_cors)


def preflight(origin: str | None) -> Response:
    if origin is None:
        return error_response(CrossSiteRefused("this origin may not call the API"))
    headers = {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": ALLOWED_METHODS,
        "Access-Control-Allow-Headers": ALLOWED_HEADERS,
        "Access-Control-Max-Age": PREFLIGHT_MAX_AGE_S,
        "Vary": "Origin",
    }
    return Response(status_code=204, headers=headers)
