"""One message answered by the SDK's `Agent` in the page that holds the sandbox (page/agent.js).

The loop, the reply parser, the streaming fallback and the call ids are the SDK's; this side makes
the model requests (wasmbox.ask.chat) and hands each event to a callback as it happens.
Cancelling `ask` (Ctrl+C) aborts the turn in the page: the model request is closed and a running
cell interrupted before it returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wasmbox.ask.chat import ChatStreams
from wasmbox.errors import SandboxError
from wasmbox.sandbox import Sandbox

Event = dict[str, Any]
BINDING = "wasmboxAgent"
# After an abort, how long the page gets to stop the model stream and the running cell.
STOP_GRACE_S = 15.0
# After the page's answer, how long its last messages (sent before it) may take to arrive.
END_GRACE_S = 10.0

_turns: dict[int, PageTurn] = {}
_tokens = itertools.count(1)


@dataclass(frozen=True)
class Outcome:
    """How the turn ended: `finish` is "answer", "step-limit", "stopped" or "error"; `error` has
    the SDK ChatError's `type`, `message`, `hint`, `status` and `code` when the model failed;
    `ungrounded`, the numbers the answer states that no run computed (the turn's `ungrounded`)."""

    finish: str
    error: dict[str, Any] | None = None
    ungrounded: tuple[str, ...] = ()

    @classmethod
    def of(cls, data: dict[str, Any]) -> Outcome:
        return cls(data["finish"], data.get("error"), tuple(data.get("ungrounded") or ()))


class PageTurn:
    """The Python side of one `agent.ask` in the page."""

    def __init__(self, chat: ChatStreams, on_event: Callable[[Event], None]) -> None:
        self.chat = chat
        self.on_event = on_event
        self.ended: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()

    async def receive(self, kind: str, payload: Any) -> Any:
        # Events are handled before the first await: in the order the page sent them.
        if kind == "event":
            self.on_event(payload)
        elif kind == "end":
            if not self.ended.done():
                self.ended.set_result(Outcome.of(payload))
        elif kind == "chat-start":
            return self.chat.start(payload)
        elif kind == "chat-next":
            return await self.chat.next(payload)
        elif kind == "chat-cancel":
            self.chat.cancel(payload)
        return None


async def deliver(token: int, kind: str, payload: Any) -> Any:
    """The page's `wasmboxAgent(token, kind, payload)`, for the turn that holds `token`."""
    turn = _turns.get(token)
    if turn is None:  # a message after the turn was let go: nothing waits for it
        return {"deltas": [], "done": True, "error": None} if kind == "chat-next" else None
    return await turn.receive(kind, payload)


async def ask(
    sandbox: Sandbox,
    chat: ChatStreams,
    question: str,
    *,
    model: str,
    max_steps: int,
    on_event: Callable[[Event], None],
) -> Outcome:
    """Answer `question` with the page's Agent on `sandbox`; returns once every event was handed."""
    host = sandbox.host
    await host.expose(BINDING, deliver)
    token = next(_tokens)
    turn = PageTurn(chat, on_event)
    _turns[token] = turn
    options = {"question": question, "model": model, "maxSteps": max_steps}
    try:
        answered = await host.call("agentAsk", token, sandbox.id, options)
        try:
            return await asyncio.wait_for(asyncio.shield(turn.ended), END_GRACE_S)
        except TimeoutError:  # the page's last events were lost: its answer still says the end
            return Outcome.of(answered)
    except asyncio.CancelledError:
        with contextlib.suppress(SandboxError, TimeoutError):
            await host.call("agentStop", token)
            await asyncio.wait_for(asyncio.shield(turn.ended), STOP_GRACE_S)
        raise
    finally:
        _turns.pop(token, None)
        await chat.close()
