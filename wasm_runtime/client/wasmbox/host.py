"""`Host`: one headless browser page running the real SDK, served by the loopback server.

Several sandboxes can share one host (they share its warm spare); a `Sandbox` made without one
starts and owns its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playwright.async_api import (
    BrowserContext,
    CDPSession,
    Error,
    Page,
    Playwright,
)

from wasmbox.browser import BrowserName, launch_args
from wasmbox.driver import start_playwright
from wasmbox.errors import SandboxError
from wasmbox.profiles import CLEARED_STORAGE, ProfileSlot, claim_slot
from wasmbox.tools import ToolFunction, call_tool

if TYPE_CHECKING:
    from wasmbox.server import LoopbackServer

StreamSink = Callable[[str, str], None]
HOST_PAGE = "/client/host.html"
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
        cdp: CDPSession | None = None,
        slot: ProfileSlot | None = None,
    ) -> None:
        self.server = server
        self._playwright = playwright
        self._close_browser = close_browser
        self.page = page
        self._sinks: dict[int, StreamSink] = {}
        # The page's `wasmboxStream` is exposed when a run first streams (not on the start's
        # path), its `wasmboxTool` when a sandbox with tools is first created: both by `expose`.
        self._tokens = itertools.count(1)
        self._toolsets: dict[int, Mapping[str, ToolFunction]] = {}
        self._closed = False
        # Chromium: calls go straight to the DevTools protocol, on this object (see `call`).
        self._cdp = cdp
        self._host_object = ""
        self._slot = slot
        self._exposed: dict[str, asyncio.Future[object]] = {}

    @classmethod
    async def start(
        cls,
        *,
        browser: BrowserName = "chromium",
        isolated: bool = True,
        profile: Path | None = None,
        port: int | None = None,
        cache: bool = True,
    ) -> Host:
        """Serve the runtime, launch `browser` headless and open the host page.

        A named session passes its own `profile` directory and `port`: the page's storage (where
        the SDK keeps persisted sandboxes) belongs to both, so keeping them keeps the sessions.
        Otherwise Chromium gets a cached profile (wasmbox.profiles: the runtime's files stay
        decoded there for the next process; nothing else is kept) unless `cache` is False or all
        slots are taken, and other engines a fresh temporary one, on a free port. `cache` also
        gives Playwright's driver Node's compile cache (wasmbox.driver).
        """
        slot = claim_slot(browser) if cache and profile is None and browser == "chromium" else None
        if slot is not None:
            profile, port = slot.profile, slot.port
        # The server (with its app's imports) starts in a thread while the browser launches:
        # neither needs the other until the page is opened.
        serving = asyncio.ensure_future(
            asyncio.to_thread(start_server, isolated, port, slot is not None)
        )
        playwright: Playwright | None = None
        try:
            playwright = await start_playwright(cache)
            context, close_browser = await open_context(playwright, browser, profile, slot)
            context.set_default_timeout(PAGE_TIMEOUT_MS)
            page = context.pages[0] if context.pages else await context.new_page()
            cdp = await context.new_cdp_session(page) if browser == "chromium" else None
            host = cls(await serving, playwright, close_browser, page, cdp, slot)
            if slot is not None:
                slot.remember(host.server.port)
                await host._clear_storage()  # what a process that ended without close() left
            await page.goto(host.server.url + HOST_PAGE)
            # A function, not a string: a string predicate is eval'd, which the page CSP refuses.
            await page.wait_for_function("() => window.wasmboxReady === true")
            if cdp is not None:
                found = await cdp.send("Runtime.evaluate", {"expression": "window.wasmboxHost"})
                host._host_object = found["result"]["objectId"]
        except BaseException:
            if playwright is not None:
                await playwright.stop()
            await stop_serving(serving)
            if slot is not None:
                slot.release()
            raise
        return host

    async def _clear_storage(self) -> None:
        """All of the page origin's storage but the runtime's CacheStorage (a cached profile)."""
        if self._cdp is not None:
            await self._cdp.send(
                "Storage.clearDataForOrigin",
                {"origin": self.server.url, "storageTypes": CLEARED_STORAGE},
            )

    async def call(self, method: str, *args: Any) -> Any:
        """`window.wasmboxHost[method](...args)`; a JS error becomes a SandboxError."""
        if self._closed:
            raise SandboxError("the wasmbox host is closed")
        try:
            # One `Runtime.callFunctionOn`: `page.evaluate` wraps each call in Playwright's own
            # serialisation and script, a few ms per round trip.
            if self._cdp is None or not self._host_object:
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

    async def stream_token(self, sink: StreamSink) -> int:
        """A token for a run's output: the page calls `wasmboxStream(token, name, text)`."""
        await self.expose("wasmboxStream", partial(deliver, self._sinks))
        token = next(self._tokens)
        self._sinks[token] = sink
        return token

    def drop_stream(self, token: int) -> None:
        self._sinks.pop(token, None)

    async def tool_token(self, tools: Mapping[str, ToolFunction]) -> int:
        """A token for a sandbox's tools: the page calls `wasmboxTool(token, name, args)`."""
        await self.expose("wasmboxTool", self._call_tool)
        token = next(self._tokens)
        self._toolsets[token] = tools
        return token

    async def _call_tool(self, token: int, name: str, args: str) -> str:
        return await call_tool(self._toolsets.get(token, {}), name, args)

    def drop_tools(self, token: int) -> None:
        self._toolsets.pop(token, None)

    async def expose(self, name: str, callback: Callable[..., Any]) -> None:
        """`window[name](...args)` in the page calls `callback(*args)` here and resolves with what
        it returns (awaited when it is a coroutine). Once per name: a later call keeps the first."""
        if name not in self._exposed:
            self._exposed[name] = asyncio.ensure_future(self.page.expose_function(name, callback))
        try:
            await asyncio.shield(self._exposed[name])
        except Error as exc:
            self._exposed.pop(name, None)
            raise SandboxError(js_message(exc.message)) from None

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self._slot is not None:
                with contextlib.suppress(Error):
                    await self._clear_storage()  # persisted sandboxes last as long as the host
            await self._close_browser()
        finally:
            await self._playwright.stop()
            await asyncio.to_thread(self.server.stop)
            if self._slot is not None:  # after the browser is gone: it held the profile
                self._slot.release()

    async def __aenter__(self) -> Host:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def open_context(
    playwright: Playwright, browser: BrowserName, profile: Path | None, slot: ProfileSlot | None
) -> tuple[BrowserContext, Callable[[], Awaitable[None]]]:
    """The browser context, and how to close it. A cached profile the browser refuses is emptied
    and this start uses a temporary one; a named session's profile fails loudly."""
    engine = getattr(playwright, browser)
    own = playwright.chromium.executable_path if browser == "chromium" else None
    # Ctrl+C belongs to the Python program, which stops its own work and then closes the browser;
    # Playwright's driver, in the same process group, would otherwise close it first.
    args = {**launch_args(browser, own), "handle_sigint": False}
    if profile is not None:
        try:
            context = await engine.launch_persistent_context(str(profile), **args)
            return context, context.close
        except Error:
            if slot is None:
                raise
            slot.discard()
    launched = await engine.launch(**args)
    return await launched.new_context(), launched.close


def start_server(isolated: bool, port: int | None, any_port: bool = False) -> LoopbackServer:
    """The loopback server, serving; on another port if `port` is taken and `any_port`.

    Imported here, in the thread that calls this: uvicorn and the page server's app take about as
    long to import as the browser takes to launch."""
    from wasmbox.server import LoopbackServer, PortInUse, client_app

    app = client_app(isolated)
    try:
        server = LoopbackServer(app, port=port)
    except PortInUse:
        if not any_port:
            raise
        server = LoopbackServer(app)
    server.start()
    return server


async def stop_serving(serving: asyncio.Future[LoopbackServer]) -> None:
    """Stop the server once its start is over (a failed start has nothing to stop)."""
    try:
        server = await serving
    except BaseException:
        return
    await asyncio.to_thread(server.stop)


def deliver(sinks: dict[int, StreamSink], token: int, name: str, text: str) -> None:
    """The page's `wasmboxStream(token, name, text)`: output for the run that holds `token`."""
    if sink := sinks.get(token):
        sink(name, text)


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
