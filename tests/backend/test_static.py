"""Headers on every static route, pre-compressed variants, caching, and path tricks."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.backend.conftest import MakeClient
from tests.backend.static_tree import CHART_BUNDLE, JS, SECRET, VERSIONED_WHEEL, make_tree

EVERY_ROUTE = [
    pytest.param("/runtime/pyodide.asm.wasm", id="runtime"),
    pytest.param("/sandbox/frame.html", id="sandbox"),
    pytest.param("/sdk/wasmbox.js", id="sdk"),
    pytest.param("/app/main.js", id="app-built"),
    pytest.param("/app/style.css", id="app-web"),
    pytest.param("/", id="index"),
]
APP_PAGES = ["/", "/app/main.js", "/sandbox/frame.html"]


@pytest.fixture
def serve(make_client: MakeClient, tmp_path: Path) -> MakeClient:
    dirs = make_tree(tmp_path)

    def make(**overrides: object) -> TestClient:
        return make_client(**(dirs | overrides))

    return make


@pytest.fixture
def static(serve: MakeClient) -> TestClient:
    return serve()


@pytest.mark.parametrize(
    ("path", "mime"),
    [
        pytest.param("/runtime/pyodide.asm.wasm", "application/wasm", id="wasm"),
        pytest.param("/runtime/pyodide.mjs", "text/javascript; charset=utf-8", id="mjs"),
        pytest.param("/runtime/pyodide-lock.json", "application/json", id="json"),
        pytest.param(f"/runtime/{VERSIONED_WHEEL}", "application/octet-stream", id="wheel"),
        pytest.param("/sdk/wasmbox.js", "text/javascript; charset=utf-8", id="sdk-js"),
        pytest.param("/sandbox/frame.html", "text/html; charset=utf-8", id="sandbox-html"),
        pytest.param("/app/style.css", "text/css; charset=utf-8", id="css"),
        pytest.param("/", "text/html; charset=utf-8", id="index"),
    ],
)
def test_mime_type(static: TestClient, path: str, mime: str) -> None:
    response = static.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == mime


@pytest.mark.parametrize("path", EVERY_ROUTE)
def test_nosniff_and_etag_everywhere(static: TestClient, path: str) -> None:
    response = static.get(path)
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["etag"]


@pytest.mark.parametrize("path", EVERY_ROUTE)
def test_head_is_answered(static: TestClient, path: str) -> None:
    response = static.head(path)
    assert response.status_code == 200
    assert response.content == b""


@pytest.mark.parametrize("path", APP_PAGES)
@pytest.mark.parametrize(
    "isolated", [pytest.param(True, id="coi"), pytest.param(False, id="no-coi")]
)
def test_cross_origin_isolation_switch(serve: MakeClient, path: str, isolated: bool) -> None:
    headers = serve(cross_origin_isolation=isolated).get(path).headers
    assert headers.get("cross-origin-opener-policy") == ("same-origin" if isolated else None)
    assert headers.get("cross-origin-embedder-policy") == ("require-corp" if isolated else None)


@pytest.mark.parametrize(
    "path", ["/runtime/pyodide.asm.wasm", "/runtime/pyodide.mjs", "/sdk/wasmbox.js"]
)
def test_runtime_files_are_fetchable_from_the_opaque_sandbox(static: TestClient, path: str) -> None:
    headers = static.get(path, headers={"Origin": "null"}).headers
    assert headers["access-control-allow-origin"] == "*"
    assert headers["cross-origin-resource-policy"] == "cross-origin"


def test_sandbox_documents_get_the_strict_csp(static: TestClient) -> None:
    csp = static.get("/sandbox/frame.html").headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "sandbox allow-scripts" in csp
    assert "connect-src http://testserver/runtime/" in csp
    assert "'unsafe-eval'" not in csp


@pytest.mark.parametrize("path", ["/", "/app/main.js"])
def test_app_pages_csp_keeps_images_local(static: TestClient, path: str) -> None:
    csp = static.get(path).headers["content-security-policy"]
    assert "img-src 'self' data: blob:" in csp
    assert "'unsafe-eval'" not in csp


@pytest.mark.parametrize(
    ("accept", "encoding"),
    [
        pytest.param("gzip, deflate, br", "br", id="br"),
        pytest.param("gzip", "gzip", id="gzip"),
        pytest.param("br;q=0, gzip", "gzip", id="br-refused"),
        pytest.param("identity", None, id="identity"),
    ],
)
def test_precompressed_variants(static: TestClient, accept: str, encoding: str | None) -> None:
    response = static.get("/runtime/pyodide.mjs", headers={"Accept-Encoding": accept})
    assert response.headers.get("content-encoding") == encoding
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert "Accept-Encoding" in response.headers["vary"]
    assert response.content == JS  # httpx decoded what Content-Encoding announced


def test_each_encoding_has_its_own_etag(static: TestClient) -> None:
    def etag(accept: str) -> str:
        response = static.get("/runtime/pyodide.mjs", headers={"Accept-Encoding": accept})
        tag: str = response.headers["etag"]
        return tag

    assert len({etag("br"), etag("gzip"), etag("identity")}) == 3


@pytest.mark.parametrize("path", EVERY_ROUTE)
def test_matching_etag_is_304(static: TestClient, path: str) -> None:
    etag = static.get(path).headers["etag"]
    response = static.get(path, headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["etag"] == etag


def test_stale_etag_gets_the_file(static: TestClient) -> None:
    response = static.get("/runtime/pyodide.mjs", headers={"If-None-Match": '"stale"'})
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("path", "immutable"),
    [
        pytest.param(f"/runtime/{VERSIONED_WHEEL}", True, id="versioned-wheel"),
        pytest.param("/runtime/pyodide.asm.wasm", False, id="wasm"),
        pytest.param("/runtime/pyodide-lock.json", False, id="lock"),
        pytest.param("/sdk/wasmbox.js", False, id="sdk"),
        pytest.param("/", False, id="index"),
    ],
)
def test_immutable_only_for_versioned_names(static: TestClient, path: str, immutable: bool) -> None:
    cache = static.get(path).headers["cache-control"]
    assert ("immutable" in cache) is immutable


@pytest.mark.parametrize(
    "raw_path",
    [
        pytest.param(b"/runtime/../outside/secret.txt", id="dotdot"),
        pytest.param(b"/runtime/%2e%2e/outside/secret.txt", id="encoded-dotdot"),
        pytest.param(b"/runtime/%2E%2E%2Foutside%2Fsecret.txt", id="encoded-slash"),
        pytest.param(b"/runtime/..%2f..%2foutside/secret.txt", id="mixed"),
        pytest.param(b"/runtime/%252e%252e/outside/secret.txt", id="double-encoded"),
        pytest.param(b"/runtime/..%5coutside%5csecret.txt", id="backslash"),
        pytest.param(b"/runtime/..\\outside\\secret.txt", id="raw-backslash"),
        pytest.param(b"/runtime/pyodide.mjs%00.png", id="nul"),
        pytest.param(b"/runtime/.hidden", id="hidden"),
        pytest.param(b"/runtime/%2ehidden", id="encoded-hidden"),
        pytest.param(b"/runtime/escape.txt", id="symlink-out"),
        pytest.param(b"/runtime/subdir", id="directory"),
        pytest.param(b"/runtime/subdir/", id="directory-slash"),
        pytest.param(b"/runtime/", id="root"),
        pytest.param(b"/runtime", id="no-slash"),
        pytest.param(b"/runtime//outside/secret.txt", id="double-slash"),
        pytest.param(b"/runtime/%2e/pyodide.mjs", id="encoded-dot"),
        pytest.param(b"/sdk/%2e%2e/sandbox/frame.html", id="sdk-escape"),
        pytest.param(b"/app/%2e%2e/%2e%2e/outside/secret.txt", id="app-escape"),
        pytest.param(b"/sandbox/%2e%2e%2f%2e%2e%2foutside%2fsecret.txt", id="sandbox-escape"),
    ],
)
def test_path_tricks_are_404_never_a_redirect(static: TestClient, raw_path: bytes) -> None:
    url = httpx.URL("http://testserver/").copy_with(raw_path=raw_path)
    response = static.get(url, follow_redirects=False)
    assert response.status_code == 404
    assert "location" not in response.headers
    assert SECRET not in response.content


def test_chart_bundles_are_immutable_fetchable_and_allowed_by_the_app_policy(
    static: TestClient,
) -> None:
    bundle = static.get(f"/charts/{CHART_BUNDLE}")
    assert bundle.status_code == 200
    assert bundle.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert bundle.headers["access-control-allow-origin"] == "*"  # an embed on another site
    # The chart frame is a srcdoc, which inherits the page's policy: its script's hash is there.
    assert "'sha256-dmVnYQ=='" in static.get("/").headers["content-security-policy"]
    assert static.get("/charts/charts.json").headers["cache-control"] == "no-cache"
