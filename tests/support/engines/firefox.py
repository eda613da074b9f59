"""Firefox through WebDriver BiDi, which it speaks natively: no driver, no patched build.

Firefox is started headless with a fresh profile and a remote-debugging port; each page is a tab
in its own user context (its own cookies and storage), driven over one websocket.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from tests.support.engines.base import EngineError, json_function, poll, unwrap
from tests.support.servers import free_port

SYSTEM_FIREFOX = ("/usr/bin/firefox-esr", "/usr/bin/firefox")
COMMAND_TIMEOUT_S = 300.0  # a test's own pytest timeout ends it sooner
# No background traffic (updates, telemetry, safe browsing, captive portal) during tests.
PREFS = {
    "app.update.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "extensions.update.enabled": False,
    "browser.aboutwelcome.enabled": False,
}


def firefox_executable() -> str | None:
    if explicit := os.environ.get("WASMBOX_FIREFOX"):
        return explicit
    found = [c for c in (*SYSTEM_FIREFOX, shutil.which("firefox-esr")) if c and Path(c).is_file()]
    return found[0] if found else None


class Bidi:
    """Commands over the BiDi websocket, one at a time. Events a page subscribed to arrive between
    the replies and are kept, in order, in `events` (method and params)."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.ids = itertools.count(1)
        self.events: list[tuple[str, dict[str, Any]]] = []

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        command_id = next(self.ids)
        self.socket.send(json.dumps({"id": command_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv(timeout=COMMAND_TIMEOUT_S))
            if message.get("type") == "event":
                self.events.append((message["method"], message["params"]))
                continue
            if message.get("id") != command_id:
                continue
            if message.get("type") == "error":
                raise EngineError(f"{method}: {message['error']}: {message.get('message', '')}")
            result: dict[str, Any] = message["result"]
            return result


class FirefoxPage:
    def __init__(self, bidi: Bidi) -> None:
        self.bidi = bidi
        self.user_context = bidi.send("browser.createUserContext")["userContext"]
        created = bidi.send("browsingContext.create", type="tab", userContext=self.user_context)
        self.context: str = created["context"]

    def goto(self, url: str) -> None:
        self.bidi.send("browsingContext.navigate", context=self.context, url=url, wait="complete")

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        return self.evaluate_in(self.context, expression, arg)

    def wait_for_function(
        self, expression: str, arg: Any = None, timeout: float | None = None
    ) -> Any:
        return poll(self, expression, arg, timeout)

    def watch_requests(self) -> None:
        """From now on, note every request this tab and the frames in it send (`requests`)."""
        self.bidi.send(
            "session.subscribe", events=["network.beforeRequestSent"], contexts=[self.context]
        )

    def requests(self) -> list[tuple[str, str]]:
        """(browsing context, URL) of each request noted since `watch_requests`: the tab's own
        context id, a frame's (`frames`), or "" for a worker's."""
        self.bidi.send("session.status")  # a round trip: events sent before it are in
        return [
            (params.get("context") or "", params["request"]["url"])
            for method, params in self.bidi.events
            if method == "network.beforeRequestSent"
            and params.get("context") in (None, self.context, *self.frames())
        ]

    def frames(self) -> list[str]:
        """The browsing contexts of every frame inside the tab, nested ones too."""
        tree = self.bidi.send("browsingContext.getTree", root=self.context)["contexts"]
        found: list[str] = []
        pending = list(tree[0].get("children") or [])
        while pending:
            frame = pending.pop(0)
            found.append(frame["context"])
            pending.extend(frame.get("children") or [])
        return found

    def evaluate_in(self, context: str, expression: str, arg: Any = None) -> Any:
        """`evaluate` in one frame, whatever its origin (an opaque one too): the driver's
        script runs in that document, past its CSP."""
        reply = self.bidi.send(
            "script.callFunction",
            functionDeclaration=json_function(expression),
            arguments=[{"type": "string", "value": json.dumps(arg)}],
            awaitPromise=True,
            target={"context": context},
            resultOwnership="none",
        )
        if reply["type"] == "exception":
            raise EngineError(reply["exceptionDetails"]["text"])
        return unwrap(reply["result"]["value"])

    def move_mouse(self, x: float, y: float) -> None:
        """Move the pointer to (x, y), CSS pixels of the tab's viewport, in a few steps as a hand
        does, so what is under it sees it enter and move."""
        self.bidi.send(
            "input.performActions",
            context=self.context,
            actions=[
                {
                    "type": "pointer",
                    "id": "mouse",
                    "parameters": {"pointerType": "mouse"},
                    "actions": [
                        {"type": "pointerMove", "x": round(x - 30), "y": round(y - 30)},
                        {"type": "pointerMove", "x": round(x), "y": round(y), "duration": 250},
                    ],
                }
            ],
        )

    def set_offline(self, offline: bool) -> None:
        conditions = {"type": "offline"} if offline else None
        self.bidi.send(
            "emulation.setNetworkConditions",
            networkConditions=conditions,
            userContexts=[self.user_context],
        )

    def close(self) -> None:
        self.bidi.send("browser.removeUserContext", userContext=self.user_context)


class FirefoxBrowser:
    name = "firefox"

    def __init__(self, process: subprocess.Popen[bytes], profile: str, bidi: Bidi, version: str):
        self.process = process
        self.profile = profile
        self.bidi = bidi
        self.version = version

    @classmethod
    def launch(cls) -> FirefoxBrowser:
        executable = firefox_executable()
        if executable is None:
            raise EngineError(
                "no Firefox found: install firefox-esr (make browser does it as root) "
                "or point WASMBOX_FIREFOX at a Firefox executable"
            )
        profile = tempfile.mkdtemp(prefix="wasmbox-firefox-")
        prefs = "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in PREFS.items())
        Path(profile, "user.js").write_text(prefs)
        port = free_port()
        process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-remote",
                "--profile",
                profile,
                "--remote-debugging-port",
                str(port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        socket = connect_when_up(f"ws://127.0.0.1:{port}/session", process)
        bidi = Bidi(socket)
        version = bidi.send("session.new", capabilities={})["capabilities"]["browserVersion"]
        return cls(process, profile, bidi, version)

    def new_page(self) -> FirefoxPage:
        return FirefoxPage(self.bidi)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # already gone: the process is ended below anyway
            self.bidi.send("browser.close")
        self.bidi.socket.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def connect_when_up(url: str, process: subprocess.Popen[bytes]) -> ClientConnection:
    deadline = time.monotonic() + 60
    while True:
        try:
            return connect(url, max_size=None, open_timeout=5, proxy=None, ping_interval=None)
        except OSError:
            if process.poll() is not None:
                raise EngineError(f"Firefox exited with {process.returncode} at start") from None
            if time.monotonic() > deadline:
                process.kill()
                raise EngineError(f"Firefox did not open its BiDi port ({url})") from None
            time.sleep(0.1)
