"""`Sandbox`: the JS SDK's Sandbox, driven from Python (async)."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from wasmbox.browser import BrowserName
from wasmbox.errors import SandboxError
from wasmbox.host import Host
from wasmbox.named import NamedSession
from wasmbox.results import Environment, ExecutionResult, FileInfo
from wasmbox.tools import ToolFunction, tool_specs

Policy = Literal["default", "off"] | dict[str, Any]
FileData = bytes | str
OnText = Callable[[str], None]


def encode(data: FileData) -> str:
    raw = data.encode() if isinstance(data, str) else data
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise TypeError(f"file data must be bytes or str, not {type(data).__name__}")
    return base64.b64encode(bytes(raw)).decode("ascii")


def milliseconds(seconds: float, what: str) -> float:
    if not seconds > 0:
        raise ValueError(f"{what} must be a positive number of seconds, got {seconds!r}")
    return seconds * 1000


class Sandbox:
    """A Python session in the browser's sandbox; state lasts across `execute` calls.

    ```python
    async with await wasmbox.Sandbox.create(timeout=30) as sb:
        r = await sb.execute("import pandas as pd; pd.__version__")
    ```
    """

    def __init__(
        self,
        host: Host,
        sandbox_id: str,
        *,
        owns_host: bool,
        named: NamedSession | None = None,
    ) -> None:
        self.host = host
        self.id = sandbox_id
        self._owns_host = owns_host
        self._named = named
        self.closed = False
        # A named session's start: whether its saved sandbox came back, whether a saved one was
        # gone (deleted or expired) so this one is new, and the variables that were not restored.
        self.resumed = False
        self.replaced = False
        self.not_restored: list[dict[str, str]] = []
        self._tool_token: int | None = None

    @classmethod
    async def create(
        cls,
        *,
        timeout: float = 30,  # noqa: ASYNC109 (the sandbox's deadline per run, not this call's)
        packages: list[str] | None = None,
        policy: Policy = "default",
        allow_install: bool = False,
        persist: bool | dict[str, Any] | None = None,
        session: str | None = None,
        data_dir: Path | None = None,
        host: Host | None = None,
        browser: BrowserName = "chromium",
        tools: Mapping[str, ToolFunction] | None = None,
    ) -> Sandbox:
        """A ready sandbox. Without `host` it starts its own browser (closed with the sandbox).

        `tools={"name": function}`: functions of this process the sandbox's Python may call
        (`from wasmbox import tools`, `await tools.name(key=value)`; wasmbox.tools says how the
        schema is made from the signature). They run here, with JSON arguments the SDK checked.

        `timeout` is each run's default deadline in seconds; `persist` asks the SDK to keep the
        session (`Sandbox.create({persist})`), which only an SDK with persisted sessions accepts.

        `session="NAME"` opens a named session: the sandbox saved under that name (variables,
        files, history), or a new persisted one, kept in a browser profile of its own under
        `data_dir` (see wasmbox.named). Only one process at a time may have it open. Tools are
        never saved: the ones given each time are the session's (see `resume`).
        """
        options: dict[str, Any] = {
            "timeoutMs": milliseconds(timeout, "timeout"),
            "packages": list(packages or []),
            "policy": policy,
            "allowInstall": allow_install,
        }
        if persist is not None:
            options["persist"] = persist
        granted = dict(tools or {})
        tool_specs(granted)  # a bad tool is a TypeError now, before a browser starts
        if session is None:
            return await cls._open(host, browser, granted, "create", options)
        if host is not None or persist is not None:
            raise ValueError("a named session starts its own browser and always persists")
        return await cls._open_named(session, data_dir, browser, options, granted)

    @classmethod
    async def _open_named(
        cls,
        name: str,
        data_dir: Path | None,
        browser: BrowserName,
        options: dict[str, Any],
        tools: dict[str, ToolFunction],
    ) -> Sandbox:
        named = NamedSession.claim(name, data_dir)
        try:
            host = await Host.start(
                browser=browser, profile=named.profile(browser), port=named.port
            )
            try:
                token, grant = await cls._grant(host, tools)
                opened = await host.call("openNamed", named.sandbox_id, options, grant)
                named.remember(port=host.server.port, sandbox_id=opened["id"])
            except BaseException:
                await host.close()
                raise
        except BaseException:
            named.release()
            raise
        sandbox = cls(host, opened["id"], owns_host=True, named=named)
        sandbox.resumed, sandbox.replaced = opened["resumed"], opened["replaced"]
        sandbox.not_restored = opened["notRestored"]
        sandbox._tool_token = token
        return sandbox

    @classmethod
    async def resume(
        cls,
        sandbox_id: str,
        *,
        host: Host | None = None,
        browser: BrowserName = "chromium",
        tools: Mapping[str, ToolFunction] | None = None,
    ) -> Sandbox:
        """A persisted session again (`Sandbox.resume(id)` in the SDK). Tools are never saved:
        `tools` are granted again, and the names the session's Python bound to tools call these."""
        granted = dict(tools or {})
        tool_specs(granted)
        return await cls._open(host, browser, granted, "resume", sandbox_id)

    @staticmethod
    async def _grant(
        host: Host, tools: dict[str, ToolFunction]
    ) -> tuple[int | None, dict[str, Any]]:
        """The page's handle on these tools (`{}` for none): their specs and a token for calls."""
        if not tools:
            return None, {}
        token = await host.tool_token(tools)
        return token, {"toolSpecs": tool_specs(tools), "toolToken": token}

    @classmethod
    async def _open(
        cls,
        host: Host | None,
        browser: BrowserName,
        tools: dict[str, ToolFunction],
        method: str,
        *args: Any,
    ) -> Sandbox:
        owns = host is None
        used = host or await Host.start(browser=browser)
        try:
            token, grant = await cls._grant(used, tools)
            sandbox_id: str = await used.call(method, *args, grant)
        except BaseException:
            if owns:
                await used.close()
            raise
        sandbox = cls(used, sandbox_id, owns_host=owns)
        sandbox._tool_token = token
        return sandbox

    async def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 (the run's deadline, kept by the SDK)
        files: Mapping[str, FileData] | None = None,
        on_stdout: OnText | None = None,
        on_stderr: OnText | None = None,
    ) -> ExecutionResult:
        """Run `code`; returns the result for anything the code does (it never raises for it)."""
        if not isinstance(code, str):
            raise TypeError("code must be a str")
        options: dict[str, Any] = {
            "files": [{"path": p, "data": encode(d)} for p, d in (files or {}).items()]
        }
        if timeout is not None:
            options["timeoutMs"] = milliseconds(timeout, "timeout")
        token = None
        if on_stdout or on_stderr:
            sinks = {"stdout": on_stdout, "stderr": on_stderr}

            def sink(name: str, text: str) -> None:
                if callback := sinks.get(name):
                    callback(text)

            token = await self.host.stream_token(sink)
        options["token"] = token
        try:
            raw = await self._call("execute", code, options)
        finally:
            if token is not None:
                self.host.drop_stream(token)
        return ExecutionResult.model_validate(raw)

    async def write_file(self, path: str, data: FileData) -> None:
        await self._call("writeFile", path, encode(data))

    async def read_file(self, path: str) -> bytes:
        return base64.b64decode(await self._call("readFile", path))

    async def list_files(self) -> list[FileInfo]:
        return [FileInfo.model_validate(f) for f in await self._call("listFiles")]

    async def environment(self) -> Environment:
        return Environment.model_validate(await self._call("environment"))

    async def close(self) -> None:
        """Free the sandbox (and its browser, when it started one). A persisted one finishes
        saving first."""
        if self.closed:
            return
        self.closed = True
        try:
            await self.host.call("close", self.id)
        finally:
            await self._let_go()

    async def delete(self) -> None:
        """Close the sandbox and remove everything it saved (a named session starts empty next)."""
        if self.closed:
            raise SandboxError("the sandbox is closed")
        self.closed = True
        try:
            await self.host.call("delete", self.id)
            if self._named is not None and self._named.port is not None:
                self._named.remember(port=self._named.port, sandbox_id=None)
        finally:
            await self._let_go()

    async def _let_go(self) -> None:
        if self._tool_token is not None:
            self.host.drop_tools(self._tool_token)
        try:
            if self._owns_host:
                await self.host.close()
        finally:
            if self._named is not None:  # after the browser is gone: it held the profile
                self._named.release()

    async def _call(self, method: str, *args: Any) -> Any:
        if self.closed:
            raise SandboxError("the sandbox is closed")
        return await self.host.call(method, self.id, *args)

    async def __aenter__(self) -> Sandbox:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
