"""`/sw.js` behind `wasmbox serve`: the offline service worker, its precache list made from the
files served, at the root so its scope covers the app, the embed and the examples."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from backend.offline import BOOT_RUNTIME_FILES
from tests.backend.conftest import MakeClient
from tests.backend.static_tree import make_tree, write

TEMPLATE = b"precacheAndRoute(self.__WB_MANIFEST); const wheels = __WASMBOX_WHEEL_CACHE__;"


@pytest.fixture
def built(tmp_path: Path) -> dict[str, Path]:
    dirs = make_tree(tmp_path)
    js, web, runtime = dirs["js_dir"], dirs["web_dir"], dirs["runtime_dir"]
    write(js / "sw" / "sw.js", TEMPLATE)
    write(js / "embed" / "embed.js", b"embed")
    write(js / "sandbox" / "frame.js", b"frame")
    write(web / "styles.css", b"body {}")
    write(web / "examples" / "embed.html", b"<!doctype html>")
    write(web / "examples" / "sample-sales.csv", b"month,region\n")
    write(runtime / "manifest.json", b'{"packages": {}}')
    for name in BOOT_RUNTIME_FILES:
        if not (runtime / name).exists():
            write(runtime / name, name.encode())
    return dirs


def precached(response_text: str) -> dict[str, str]:
    found = re.search(r"precacheAndRoute\((\[.*?\])\)", response_text)
    assert found, response_text
    return {entry["url"]: entry["revision"] for entry in json.loads(found.group(1))}


def test_the_worker_is_served_at_the_root_uncached(
    make_client: MakeClient, built: dict[str, Path]
) -> None:
    response = make_client(**built).get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/javascript; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-content-type-options"] == "nosniff"
    urls = set(precached(response.text))
    assert {"./", "embed.js", "app/main.js", "app/styles.css", "sdk/wasmbox.js"} <= urls
    assert {"sandbox/frame.js", "examples/embed.html", "runtime/pyodide.asm.wasm"} <= urls
    assert "examples/sample-sales.csv" in urls  # the first screen's sample data, offline too
    # The chart libraries are cached the first time a chart appears, not installed up front.
    assert not any(url.startswith("charts/") for url in urls)
    assert not any(url.endswith((".br", ".gz")) or "hidden" in url for url in urls)
    assert '"wasmbox-wheels-' in response.text


def test_a_changed_file_changes_its_entry_and_the_wheel_cache(
    make_client: MakeClient, built: dict[str, Path]
) -> None:
    client: TestClient = make_client(**built)
    before = client.get("/sw.js").text
    write(built["js_dir"] / "sdk" / "wasmbox.js", b"the next build")
    after = client.get("/sw.js").text
    changed = {url for url, rev in precached(after).items() if precached(before)[url] != rev}
    assert changed == {"sdk/wasmbox.js"}
    assert before.split("wasmbox-wheels-")[1] != after.split("wasmbox-wheels-")[1]


def test_cross_origin_isolation_reaches_the_worker_too(
    make_client: MakeClient, built: dict[str, Path]
) -> None:
    response = make_client(**built, cross_origin_isolation=True).get("/sw.js")
    assert response.headers["cross-origin-embedder-policy"] == "require-corp"


def test_unbuilt_it_is_not_found(make_client: MakeClient, built: dict[str, Path]) -> None:
    (built["js_dir"] / "sw" / "sw.js").unlink()
    assert make_client(**built).get("/sw.js").status_code == 404
