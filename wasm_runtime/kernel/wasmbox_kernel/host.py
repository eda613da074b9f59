"""Python's side of the host bridge: `from wasmbox import tools`, `ToolError`, and `input()`.

The host grants a run its tools (and may answer `input()`); the worker hands the run a bridge
(sandbox/host-calls.ts): a JSON description of what the run may ask, and two functions that send a
call's JSON arguments to the host and give back the answer as a JSON envelope
`{"ok", "value", "error", "stopped"}`. Only JSON text crosses, both ways; the host checks the
arguments against the tool's schema before its handler runs.

`tools.name(**kwargs)` called directly from async code (a cell that awaits, an `async def`) returns
an awaitable; called from synchronous code it blocks until the host answers, where the engine can
block (interrupt mode: shared memory). Elsewhere a synchronous call raises `ToolError` saying to
`await` it.
"""

from __future__ import annotations

import builtins
import inspect
import io
import json
import sys
import types
from collections.abc import Awaitable, Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any, Protocol

from .protocol_data import LIMITS

MODULE_NAME = "wasmbox"
MAX_TOOL_BYTES = LIMITS["maxToolBytes"]

NO_BLOCKING = (
    "this browser cannot block the sandbox while the host answers (terminate-only mode: the page "
    "is not cross-origin isolated, so there is no shared memory)"
)
NO_STDIN_MESSAGE = (
    "input() is not available in the sandbox: there is no stdin. "
    "Put the data in the code or in a file instead."
)


class ToolError(Exception):
    """A host tool refused the call or failed; the message says why (the handler's own message)."""

    __module__ = MODULE_NAME

    def __init__(self, message: str, tool: str = "") -> None:
        super().__init__(message)
        self.tool = tool


class HostBridge(Protocol):
    """The worker's object for one run (sandbox/host-calls.ts: RunBridge)."""

    spec: str

    def call(self, kind: str, name: str, args: str) -> Awaitable[str]: ...

    def call_sync(self, kind: str, name: str, args: str) -> str: ...


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    signature: str


@dataclass(frozen=True)
class RunHost:
    """What the current run may ask the host."""

    bridge: HostBridge | None = None
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    input: bool = False
    can_block: bool = False

    @classmethod
    def of(cls, bridge: HostBridge | None) -> RunHost:
        if bridge is None:
            return _NO_HOST
        spec = json.loads(str(bridge.spec))
        tools = {
            str(t["name"]): ToolSpec(str(t["name"]), str(t["description"]), str(t["signature"]))
            for t in spec.get("tools", [])
        }
        return cls(bridge, tools, bool(spec.get("input")), bool(spec.get("can_block")))


_NO_HOST = RunHost()
_current: ContextVar[RunHost | None] = ContextVar("wasmbox_host", default=None)


def _host() -> RunHost:
    return _current.get() or _NO_HOST


class granted:
    """The run's tools and input() for its duration (tasks it starts keep them: the worker then
    refuses their calls once the run is over). A class, as the kernel's other per-run context
    managers: entered on every run, a generator-based one cost several times as much."""

    def __init__(self, host: RunHost) -> None:
        self._host = host
        self._tokens: list[Token[RunHost | None]] = []

    def __enter__(self) -> RunHost:
        self._tokens.append(_current.set(self._host))
        return self._host

    def __exit__(self, *exc: object) -> None:
        _current.reset(self._tokens.pop())


def _answer(envelope: str, name: str) -> Any:
    answer = json.loads(envelope)
    if answer.get("stopped"):
        raise KeyboardInterrupt(f"the run was stopped while {name} waited for the host")
    if not answer.get("ok"):
        raise ToolError(str(answer.get("error") or "the host refused the call"), name)
    return json.loads(answer["value"])


_ASYNC_CODE = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def _called_from_async_code(depth: int) -> bool:
    """Whether the caller `depth` frames up is async code (a cell that awaits, an `async def`),
    where the call can be awaited; a plain function called from there cannot await it. A
    generator expression counts as the code that consumes it (`gather(*(tools.f() for ...))`)."""
    frame = sys._getframe(depth + 1)
    while frame.f_code.co_name == "<genexpr>" and frame.f_back is not None:
        frame = frame.f_back
    return bool(frame.f_code.co_flags & _ASYNC_CODE)


class Tool:
    """One host tool as a Python function: keyword arguments in, JSON data out."""

    def __init__(self, spec: ToolSpec) -> None:
        self.__name__ = spec.name
        self.__qualname__ = f"tools.{spec.name}"
        self.__doc__ = f"{spec.signature}\n\n{spec.description}".strip()
        self._spec = spec

    def __repr__(self) -> str:
        return f"<host tool {self._spec.signature}>"

    def __call__(self, *args: object, **kwargs: object) -> Any:
        name = self._spec.name
        if args:
            raise TypeError(f"tools.{name}() takes keyword arguments only: {self._spec.signature}")
        try:
            text = json.dumps(kwargs, allow_nan=False, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ToolError(f"the arguments of {name} must be JSON data: {exc}", name) from None
        if len(text) > MAX_TOOL_BYTES or len(text.encode()) > MAX_TOOL_BYTES:
            raise ToolError(f"the arguments of {name} are over the {MAX_TOOL_BYTES}-byte cap", name)
        host = _host()
        if host.bridge is None or name not in host.tools:
            raise ToolError(f"the tool {name} is not granted to this run", name)
        bridge = host.bridge
        if _called_from_async_code(1):
            return self._awaited(bridge, text)
        if not host.can_block:
            raise ToolError(
                f"tools.{name}(...) needs `await` here: {NO_BLOCKING}. "
                f"Write `await tools.{name}(...)`.",
                name,
            )
        return _answer(bridge.call_sync("tool", name, text), name)

    async def _awaited(self, bridge: HostBridge, text: str) -> Any:
        return _answer(await bridge.call("tool", self._spec.name, text), self._spec.name)


class Tools:
    """`wasmbox.tools`: the tools the host granted the current run, as attributes."""

    def __getattr__(self, name: str) -> Tool:
        if name.startswith("__"):
            raise AttributeError(name)
        spec = _host().tools.get(name)
        if spec is None:
            offered = ", ".join(sorted(_host().tools)) or "none"
            raise AttributeError(f"the host offers no tool {name!r} (tools of this run: {offered})")
        return Tool(spec)

    def __dir__(self) -> list[str]:
        return sorted(_host().tools)

    def __repr__(self) -> str:
        specs = _host().tools.values()
        return "<wasmbox.tools: " + ("; ".join(s.signature for s in specs) or "none") + ">"


class HostStdin(io.TextIOBase):
    """stdin for a run: `input()` asks the host for a line when it answers (`onInput`) and the
    engine can block; otherwise reading raises EOFError saying why, instead of hanging."""

    def __init__(self, prompt: Callable[[], str], echo: Callable[[str], object]) -> None:
        super().__init__()
        self._prompt = prompt
        self._echo = echo

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        raise EOFError(NO_STDIN_MESSAGE)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        host = _host()
        if host.bridge is None or not host.input:
            raise EOFError(NO_STDIN_MESSAGE)
        if not host.can_block:
            raise EOFError(f"input() cannot wait for an answer: {NO_BLOCKING}")
        envelope = json.loads(host.bridge.call_sync("input", "input", json.dumps(self._prompt())))
        if envelope.get("stopped"):
            raise KeyboardInterrupt("the run was stopped while input() waited for the host")
        if not envelope.get("ok"):
            raise EOFError(str(envelope.get("error") or "the host gave no input"))
        line = str(json.loads(envelope["value"])).split("\n", 1)[0]
        self._echo(line + "\n")  # the transcript reads as a terminal's would
        return line + "\n"


def _made_module() -> types.ModuleType:
    made = types.ModuleType(MODULE_NAME, "The sandbox's link to its host: `tools`, `ToolError`.")
    made.tools = Tools()  # type: ignore[attr-defined]
    made.ToolError = ToolError  # type: ignore[attr-defined]
    return made


_MODULE = _made_module()


class tools_in_reach:
    """`tools` with no import in a run the host granted tools to, as a builtin: a variable of the
    cells' own named `tools` still wins, and nothing is added to the variables that are saved."""

    def __init__(self, host: RunHost) -> None:
        self._wanted = bool(host.tools)
        self._added: list[bool] = []

    def __enter__(self) -> None:
        added = self._wanted and not hasattr(builtins, "tools")
        if added:
            builtins.tools = _MODULE.tools  # type: ignore[attr-defined]
        self._added.append(added)

    def __exit__(self, *exc: object) -> None:
        if self._added.pop():
            del builtins.tools  # type: ignore[attr-defined]


class host_module:
    """`import wasmbox` gives the cells this module during a run (and whatever the process had
    under that name before, after it: the CPython tests' process has the wasmbox client)."""

    def __init__(self) -> None:
        self._previous: list[types.ModuleType | None] = []

    def __enter__(self) -> types.ModuleType:
        self._previous.append(sys.modules.get(MODULE_NAME))
        sys.modules[MODULE_NAME] = _MODULE
        return _MODULE

    def __exit__(self, *exc: object) -> None:
        previous = self._previous.pop()
        if previous is not None:
            sys.modules[MODULE_NAME] = previous
        else:
            sys.modules.pop(MODULE_NAME, None)
