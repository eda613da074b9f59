"""`Host`: one headless browser page running the real SDK, served by the loopback server.

Several sandboxes can share one host (they share its warm spare); a `Sandbox` made without one
starts and owns its own.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import (
    BrowserContext,
    CDPSession,
    Error,
    Page,
    Playwright,
    async_playwright,
)

from wasmbox.browser import BrowserName, launch_args
from wasmbox.errors import SandboxError
from wasmbox.server import HOST_PAGE, LoopbackServer, client_app, client_settings

StreamSink = Callable[[str, str], None]
# Booting on a busy 2-core machine can take tens of seconds; runs keep their own deadlines.
PAGE_TIMEOUT_MS = 120_000


class Host:
    """A loopback server, a browser and one page with `window.wasmboxHost` from page/host.js."""

    def __init__(
        self,
        server: LoopbackServer,
        playwright: Playwright,
        close_browser: Callable[[], Awaitable[None]],
        page: Page,
    ) -> None:
        self.server = server
        self._playwright = playwright
        self._close_browser = close_browser
        self.page = page
        self._sinks: dict[int, StreamSink] = {}
        self._tokens = itertools.count(1)
        self._closed = False
        # Chromium: calls go straight to the DevTools protocol (see `_calls_over_cdp`).
        self._cdp: CDPSession | None = None
        self._host_object = ""

    @classmethod
    async def start(
        cls,
        *,
        browser: BrowserName = "chromium",
        isolated: bool = True,
        profile: Path | None = None,
        port: int | None = None,
    ) -> Host:
        """Serve the runtime, launch `browser` headless and open the host page.

        By default the browser profile is a fresh temporary one and the port a free one. A named
        session passes its own `profile` directory and `port`: the page's storage (where the SDK
        keeps persisted sandboxes) belongs to both, so keeping them keeps the sessions.
        """
        server = LoopbackServer(client_app(client_settings(isolated)), port=port)
        await asyncio.to_thread(server.start)
        playwright = await async_playwright().start()
        try:
            engine = getattr(playwright, browser)
            own = playwright.chromium.executable_path if browser == "chromium" else None
            context: BrowserContext
            if profile is None:
                launched = await engine.launch(**launch_args(browser, own))
                context = await launched.new_context()
                close_browser = launched.close
            else:
                context = await engine.launch_persistent_context(
                    str(profile), **launch_args(browser, own)
                )
                close_browser = context.close
            context.set_default_timeout(PAGE_TIMEOUT_MS)
            page = context.pages[0] if context.pages else await context.new_page()
            host = cls(server, playwright, close_browser, page)
            await page.expose_function("wasmboxStream", host._stream)
            await page.goto(server.url + HOST_PAGE)
            # A function, not a string: a string predicate is eval'd, which the page CSP refuses.
            await page.wait_for_function("() => window.wasmboxReady === true")
            if browser == "chromium":
                await host._calls_over_cdp(context)
        except BaseException:
            await playwright.stop()
            server.stop()
            raise
        return host

    async def _calls_over_cdp(self, context: BrowserContext) -> None:
        """Send calls as one `Runtime.callFunctionOn` on the host object: `page.evaluate` wraps
        each call in Playwright's own serialisation and script, a few ms per round trip."""
        cdp = await context.new_cdp_session(self.page)
        found = await cdp.send("Runtime.evaluate", {"expression": "window.wasmboxHost"})
        self._host_object = found["result"]["objectId"]
        self._cdp = cdp

    async def call(self, method: str, *args: Any) -> Any:
        """`window.wasmboxHost[method](...args)`; a JS error becomes a SandboxError."""
        if self._closed:
            raise SandboxError("the wasmbox host is closed")
        try:
            if self._cdp is None:
                return await self.page.evaluate(
                    "([m, args]) => window.wasmboxHost[m](...args)", [method, list(args)]
                )
            reply = await self._cdp.send(
                "Runtime.callFunctionOn",
                {
                    "functionDeclaration": CALL_FUNCTION,
                    "objectId": self._host_object,
                    "arguments": [{"value": method}, {"value": list(args)}],
                    "awaitPromise": True,
                    "returnByValue": True,
                },
            )
        except Error as exc:
            raise SandboxError(js_message(exc.message)) from None
        if details := reply.get("exceptionDetails"):
            raise SandboxError(js_message(thrown_text(details)))
        return reply["result"].get("value")

    def stream_token(self, sink: StreamSink) -> int:
        token = next(self._tokens)
        self._sinks[token] = sink
        return token

    def drop_stream(self, token: int) -> None:
        self._sinks.pop(token, None)

    def _stream(self, token: int, name: str, text: str) -> None:
        if sink := self._sinks.get(token):
            sink(name, text)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._close_browser()
        finally:
            await self._playwright.stop()
            await asyncio.to_thread(self.server.stop)

    async def __aenter__(self) -> Host:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


CALL_FUNCTION = "function (method, args) { return this[method](...args); }"


def thrown_text(details: dict[str, Any]) -> str:
    """What a CDP `exceptionDetails` says was thrown: the error's description, or the value."""
    exception = details.get("exception") or {}
    if "description" in exception:
        return str(exception["description"])
    if "value" in exception:
        return str(exception["value"])
    return str(details.get("text") or "the browser call failed")


def js_message(message: str) -> str:
    """The thrown error's own message, without Playwright's call log and stack."""
    first = message.strip().splitlines()[0] if message.strip() else "the browser call failed"
    for prefix in ("Error: ", "page.evaluate: ", "Page.evaluate: ", "Error: "):
        first = first.removeprefix(prefix)
    return first
