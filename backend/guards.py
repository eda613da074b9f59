"""Checks every proxied request passes before it costs anything: origin, media type, token, size."""

from __future__ import annotations

import hmac
from urllib.parse import urlsplit

from fastapi import Request

from backend.deps import SettingsDep
from backend.proxy.errors import BodyTooLarge, CrossSiteRefused, Unauthorized, UnsupportedMediaType

TOKEN_HEADER = "x-wasmbox-token"  # noqa: S105 (a header name, not a secret)
TOKEN_COOKIE = "wasmbox_token"  # noqa: S105


def client_key(request: Request) -> str:
    """Whose budget a request spends: the peer address (uvicorn applies trusted proxy headers)."""
    return request.client.host if request.client else "unknown"


def is_same_origin(origin: str, request: Request) -> bool:
    return urlsplit(origin).netloc == request.headers.get("host")


async def refuse_cross_site(request: Request, settings: SettingsDep) -> None:
    """Browsers send `Origin` on cross-site POSTs; only our own and the embed origins may call.

    Requiring `application/json` adds a second wall: a plain HTML form cannot send it, and a script
    on another site cannot send it without a CORS preflight we do not grant.
    """
    origin = request.headers.get("origin")
    if origin and not is_same_origin(origin, request) and origin not in settings.cors_origins:
        raise CrossSiteRefused("requests from this origin are not allowed")
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise UnsupportedMediaType("send the body as application/json")


def presented_token(request: Request) -> str | None:
    authorization = request.headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return request.headers.get(TOKEN_HEADER) or request.cookies.get(TOKEN_COOKIE)


async def require_access(request: Request, settings: SettingsDep) -> None:
    # async: a plain `def` dependency costs a thread-pool hop per request (see deps.py)
    if settings.access_token is None:
        return
    expected = settings.access_token.get_secret_value().encode()
    token = presented_token(request)
    if token is None or not hmac.compare_digest(token.encode(), expected):
        raise Unauthorized(
            f"this server needs an access token (header X-Wasmbox-Token, "
            f"'Authorization: Bearer …' or the {TOKEN_COOKIE} cookie)"
        )


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body, refused with 413 as soon as it passes `limit` (before any parsing)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge(f"the request body is over {limit} bytes")
    received = bytearray()
    async for chunk in request.stream():
        received += chunk
        if len(received) > limit:
            raise BodyTooLarge(f"the request body is over {limit} bytes")
    return bytes(received)
