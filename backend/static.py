"""Static files: the app, the SDK, the sandbox documents and the runtime.

Built files are served from disk as they are, with pre-compressed `.br`/`.gz` siblings (made at
build time) chosen by `Accept-Encoding`. Every file has an ETag, and `If-None-Match` answers 304.
Paths are checked segment by segment, so `..` in any encoding, hidden files and directories all
answer 404; nothing here ever redirects (the app is built with `redirect_slashes=False`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import re
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from backend.deps import SettingsDep
from backend.offline import OfflineError, served_files, service_worker
from backend.security_headers import (
    CROSS_ORIGIN_ISOLATION,
    NOSNIFF,
    RUNTIME_CORS,
    app_page_csp,
    sandbox_document_csp,
)
from wasm_runtime.paths import JS_DIR, PROTOCOL_DIR

# The extension table the sandbox and the kernel use too (wasm_runtime/protocol/mime.json);
# text is served as UTF-8.
MIME_TYPES = {
    extension: f"{mime}; charset=utf-8" if mime.startswith("text/") else mime
    for extension, mime in json.loads((PROTOCOL_DIR / "mime.json").read_text()).items()
}
# Encodings made at build time, most compact first.
PRECOMPRESSED = (("br", ".br"), ("gzip", ".gz"))
# A version in the file name (numpy-2.0.2-…whl, openblas-0.3.26.zip) makes the URL immutable.
VERSIONED_NAME = re.compile(r"-\d+(\.\d+)+[^/]*\.(whl|zip|tar)$")
# The chart bundles' names carry their content's hash (scripts/build-web.mjs).
CONTENT_NAMED = re.compile(r"-[0-9a-f]{12}\.js$")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"

# Example pages whose trusted code needs eval: PyScript's interpreter runs on the page.
EVAL_PAGES = {"pyscript.html"}

router = APIRouter()


def safe_file(root: Path, rel_path: str) -> Path | None:
    """The file under `root` named by `rel_path`, or None for anything that is not a plain file."""
    if not rel_path or "\\" in rel_path or "\x00" in rel_path:
        return None
    parts = rel_path.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return None
    candidate = root.joinpath(*parts)
    try:
        resolved = candidate.resolve(strict=True)
        resolved.relative_to(root.resolve())
    except (OSError, ValueError):
        return None
    return resolved if resolved.is_file() else None


def media_type(path: Path) -> str:
    return (
        MIME_TYPES.get(path.suffix)
        or mimetypes.guess_type(path.name)[0]
        or "application/octet-stream"
    )


def accepted_encodings(header: str) -> set[str]:
    """Encodings named in `Accept-Encoding` with a non-zero quality (`br;q=0` refuses br)."""
    accepted = set()
    for item in header.split(","):
        name, _, params = item.partition(";")
        quality = params.strip().removeprefix("q=")
        try:
            refused = bool(params.strip()) and float(quality) <= 0
        except ValueError:
            refused = True
        if name.strip() and not refused:
            accepted.add(name.strip().lower())
    return accepted


def file_response(request: Request, path: Path, headers: dict[str, str]) -> Response:
    """Serve `path`, or its pre-compressed sibling when the client accepts that encoding."""
    # A byte range of a compressed copy would confuse clients; ranges get the plain file.
    accepted = (
        set()
        if "range" in request.headers
        else accepted_encodings(request.headers.get("accept-encoding", ""))
    )
    served = path
    headers = {**NOSNIFF, **headers, "Vary": "Accept-Encoding"}
    for encoding, suffix in PRECOMPRESSED:
        sibling = path.with_name(path.name + suffix)
        if encoding in accepted and sibling.is_file():
            served = sibling
            headers["Content-Encoding"] = encoding
            break
    # stat_result up front, so the ETag is known before deciding on 304.
    stat = served.stat()
    response = FileResponse(served, media_type=media_type(path), headers=headers, stat_result=stat)
    if etag_matches(request.headers.get("if-none-match"), response.headers["etag"]):
        kept = {k: v for k, v in response.headers.items() if k not in ("content-length",)}
        return Response(status_code=304, headers=kept)
    return response


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return "*" in tags or etag in tags


def not_found() -> Response:
    return JSONResponse({"error": "not_found"}, status_code=404, headers=NOSNIFF)


def frame_script_sha256(js_dir: Path) -> str | None:
    """The CSP hash of the sandbox frame's inline script, or None before the JS is built."""
    path = js_dir / "sandbox" / "frame.js"
    try:
        stat = path.stat()
    except OSError:
        return None
    return file_sha256(path, stat.st_mtime_ns, stat.st_size)


def chart_script_sha256s(js_dir: Path) -> tuple[str, ...]:
    """The CSP hashes of the chart frames' inline scripts (build/js/charts/charts.json)."""
    path = js_dir / "charts" / "charts.json"
    try:
        stat = path.stat()
    except OSError:
        return ()
    return _chart_hashes(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _chart_hashes(path: Path, mtime_ns: int, size: int) -> tuple[str, ...]:
    bundles = json.loads(path.read_text(encoding="utf-8"))
    return tuple(str(bundle["sha256"]) for _, bundle in sorted(bundles.items()))


@lru_cache(maxsize=8)
def file_sha256(path: Path, mtime_ns: int, size: int) -> str:
    """Base64 sha256 of a file; the mtime and size in the key make a rebuilt file hash anew."""
    return base64.b64encode(hashlib.sha256(path.read_bytes()).digest()).decode()


def app_page_headers(
    isolated: bool, js_dir: Path = JS_DIR, allow_eval: bool = False
) -> dict[str, str]:
    csp = app_page_csp(
        frame_script_sha256(js_dir),
        allow_eval=allow_eval,
        chart_script_sha256s=chart_script_sha256s(js_dir),
    )
    headers = {"Content-Security-Policy": csp, "Cache-Control": REVALIDATE}
    return {**headers, **CROSS_ORIGIN_ISOLATION} if isolated else headers


def origin_of(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


@router.api_route("/runtime/{rel_path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def runtime_file(rel_path: str, request: Request, settings: SettingsDep) -> Response:
    path = safe_file(settings.runtime_dir, rel_path)
    if path is None:
        return not_found()
    cache = IMMUTABLE if VERSIONED_NAME.search(path.name) else REVALIDATE
    return file_response(request, path, {**RUNTIME_CORS, "Cache-Control": cache})


@router.api_route("/sandbox/{rel_path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def sandbox_file(rel_path: str, request: Request, settings: SettingsDep) -> Response:
    path = safe_file(settings.js_dir / "sandbox", rel_path)
    if path is None:
        return not_found()
    headers = {
        **RUNTIME_CORS,
        "Content-Security-Policy": sandbox_document_csp(origin_of(request)),
        "Cache-Control": REVALIDATE,
    }
    if settings.cross_origin_isolation:
        headers |= CROSS_ORIGIN_ISOLATION
    return file_response(request, path, headers)


@router.api_route("/sdk/{rel_path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def sdk_file(rel_path: str, request: Request, settings: SettingsDep) -> Response:
    path = safe_file(settings.js_dir / "sdk", rel_path)
    if path is None:
        return not_found()
    headers = {**RUNTIME_CORS, "Cache-Control": REVALIDATE}
    return file_response(request, path, headers)


@router.api_route("/charts/{rel_path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def chart_file(rel_path: str, request: Request, settings: SettingsDep) -> Response:
    """The chart libraries, fetched by a page (or an embed on another site) when a chart appears;
    named by their content, so immutable."""
    path = safe_file(settings.js_dir / "charts", rel_path)
    if path is None:
        return not_found()
    cache = IMMUTABLE if CONTENT_NAMED.search(path.name) else REVALIDATE
    return file_response(request, path, {**RUNTIME_CORS, "Cache-Control": cache})


@router.api_route("/app/{rel_path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def app_asset(rel_path: str, request: Request, settings: SettingsDep) -> Response:
    path = safe_file(settings.js_dir / "app", rel_path) or safe_file(settings.web_dir, rel_path)
    if path is None:
        return not_found()
    return file_response(
        request, path, app_page_headers(settings.cross_origin_isolation, settings.js_dir)
    )


@router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
def index(request: Request, settings: SettingsDep) -> Response:
    path = safe_file(settings.web_dir, "index.html")
    if path is None:
        return not_found()
    return file_response(
        request, path, app_page_headers(settings.cross_origin_isolation, settings.js_dir)
    )


@router.api_route("/pyscript/{rel_path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def pyscript_file(rel_path: str, request: Request, settings: SettingsDep) -> Response:
    """@pyscript/core for the PyScript example, from the build (never a CDN)."""
    path = safe_file(settings.js_dir / "pyscript", rel_path)
    if path is None:
        return not_found()
    return file_response(request, path, {**RUNTIME_CORS, "Cache-Control": REVALIDATE})


@router.api_route("/embed.js", methods=["GET", "HEAD"], include_in_schema=False)
@router.api_route("/embed.js.map", methods=["GET", "HEAD"], include_in_schema=False)
def embed_script(request: Request, settings: SettingsDep) -> Response:
    """The one-tag embed; in an export it sits at the top too (DIR/embed.js, next to DIR/sdk/)."""
    path = safe_file(settings.js_dir / "embed", request.url.path.removeprefix("/"))
    if path is None:
        return not_found()
    return file_response(request, path, {**RUNTIME_CORS, "Cache-Control": REVALIDATE})


@router.api_route("/examples/{rel_path:path}", methods=["GET", "HEAD"], include_in_schema=False)
def example_page(rel_path: str, request: Request, settings: SettingsDep) -> Response:
    path = safe_file(settings.web_dir / "examples", rel_path)
    if path is None:
        return not_found()
    headers = app_page_headers(
        settings.cross_origin_isolation, settings.js_dir, allow_eval=path.name in EVAL_PAGES
    )
    return file_response(request, path, headers)


@router.api_route("/sw.js", methods=["GET", "HEAD"], include_in_schema=False)
def service_worker_script(request: Request, settings: SettingsDep) -> Response:
    """The offline service worker, at the root so its scope covers the app, the embed and the
    examples; its precache list is made from the files served here (backend/offline.py)."""
    try:
        template = (settings.js_dir / "sw" / "sw.js").read_text(encoding="utf-8")
        files = served_files(settings.js_dir, settings.web_dir, settings.runtime_dir)
        script = service_worker(template, files)
    except (OSError, OfflineError):
        return not_found()  # not built yet: the pages work online, as with no service worker
    headers = {**NOSNIFF, "Cache-Control": REVALIDATE}
    if settings.cross_origin_isolation:
        headers |= CROSS_ORIGIN_ISOLATION
    body = b"" if request.method == "HEAD" else script.encode()
    return Response(body, media_type=MIME_TYPES[".js"], headers=headers)
