"""Everything the proxy refuses or fails with, and the one place that turns it into HTTP.

Our exception hierarchy:

* ProxyError
  + RequestRefused ............ the client's request is not accepted (4xx)
  | + Unauthorized ............ 401 missing or wrong access token
  | + CrossSiteRefused ........ 403 a browser request from an origin that is not allowed
  | + UnsupportedMediaType .... 415 the body is not declared as JSON
  | + BodyTooLarge ............ 413 more bytes, messages or characters than allowed
  | + InvalidBody ............. 422 not JSON, or not a chat-completions body we accept
  | + ModelNotAllowed ......... 400 the model is not on the allow-list
  | + RateLimited ............. 429 over the request rate or the concurrent-stream cap
  + NotConfigured ............. 503 no LLM is configured on this server
  + UpstreamError ............. the LLM server failed us (502 unless said otherwise)
    + UpstreamUnreachable ..... could not connect (after the retries)
    + UpstreamTimeout ......... 504 no answer in time
    + UpstreamStatus .......... it answered with an HTTP error
    + UpstreamMalformed ....... it answered with something that is not what was asked for

Messages are written here, never copied from upstream: an upstream body can echo the key or the
prompt, so it is not passed on.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse


class ProxyError(Exception):
    """Base of every error the proxy answers with JSON."""

    status_code = 500
    kind = "proxy_error"

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        """OpenAI's error shape, so OpenAI client libraries show the message."""
        return {"error": {"type": self.kind, "code": self.kind, "message": self.message}}


class RequestRefused(ProxyError):
    status_code = 400
    kind = "invalid_request"


class Unauthorized(RequestRefused):
    status_code = 401
    kind = "unauthorized"


class CrossSiteRefused(RequestRefused):
    status_code = 403
    kind = "cross_site_refused"


class UnsupportedMediaType(RequestRefused):
    status_code = 415
    kind = "unsupported_media_type"


class BodyTooLarge(RequestRefused):
    status_code = 413
    kind = "too_large"


class InvalidBody(RequestRefused):
    status_code = 422
    kind = "invalid_body"

    def __init__(self, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []

    def body(self) -> dict[str, Any]:
        return {**super().body(), "detail": self.errors}


class ModelNotAllowed(RequestRefused):
    kind = "model_not_allowed"


class RateLimited(RequestRefused):
    status_code = 429
    kind = "rate_limited"

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message, headers={"Retry-After": str(max(1, retry_after_s))})


class NotConfigured(ProxyError):
    status_code = 503
    kind = "llm_not_configured"


class UpstreamError(ProxyError):
    status_code = 502
    kind = "upstream_error"


class UpstreamUnreachable(UpstreamError):
    kind = "upstream_unreachable"


class UpstreamTimeout(UpstreamError):
    status_code = 504
    kind = "upstream_timeout"


class UpstreamStatus(UpstreamError):
    kind = "upstream_status"


class UpstreamMalformed(UpstreamError):
    kind = "upstream_malformed"


def error_response(error: ProxyError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status_code, headers=error.headers)


async def handle_proxy_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ProxyError)  # registered for ProxyError only
    return error_response(exc)


def sse_error_event(error: ProxyError) -> bytes:
    """The error as a last SSE event, for failures after the stream has started.

    The leading blank line ends any event the upstream left half-sent.
    """
    return b"\n\ndata: " + json.dumps(error.body()).encode() + b"\n\n"
