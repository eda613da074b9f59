"""The interface every engine implements, and the JSON wrapper the WebDriver engines share."""

from __future__ import annotations

import json
import time
from typing import Any, Protocol

DEFAULT_TIMEOUT_MS = 120_000


class EngineError(Exception):
    """A script threw in the page (the message is the page's), or the engine failed."""


class Evaluates(Protocol):
    def evaluate(self, expression: str, arg: Any = None) -> Any: ...


class EnginePage(Protocol):
    """One tab with its own storage, as the tests drive it."""

    def goto(self, url: str) -> None: ...

    def evaluate(self, expression: str, arg: Any = None) -> Any:
        """Playwright's rule: a function expression is called with `arg` and awaited, anything
        else is evaluated and awaited; the value comes back as JSON-compatible data."""
        ...

    def wait_for_function(
        self, expression: str, arg: Any = None, timeout: float | None = None
    ) -> Any: ...

    def set_offline(self, offline: bool) -> None:
        """Cut this page's network (its service worker's too), or give it back; an engine
        whose driver cannot raises EngineError."""
        ...

    def close(self) -> None: ...


class EngineBrowser(Protocol):
    name: str
    version: str

    def new_page(self) -> EnginePage: ...

    def close(self) -> None: ...


def json_function(expression: str) -> str:
    """A function of one JSON string that runs `expression` as `evaluate` does and returns
    `{ok, value}` or `{ok: false, error}` as JSON. The expression is inlined, not eval'd: the
    test pages' CSP forbids eval."""
    return f"""async function (argJson) {{
  try {{
    const target = ({expression});
    const value = typeof target === "function" ? await target(JSON.parse(argJson)) : await target;
    return JSON.stringify({{ ok: true, value: value === undefined ? null : value }});
  }} catch (error) {{
    return JSON.stringify({{ ok: false, error: String((error && error.message) || error) }});
  }}
}}"""


def unwrap(reply: str) -> Any:
    parsed = json.loads(reply)
    if not parsed["ok"]:
        raise EngineError(parsed["error"])
    return parsed["value"]


# Playwright's words for an evaluation cut short by the page navigating.
NAVIGATED = "Execution context was destroyed"


def poll(page: Evaluates, expression: str, arg: Any, timeout: float | None) -> Any:
    """Evaluate until the value is truthy, every 100 ms, up to `timeout` ms. Unlike Playwright's
    `wait_for_function`, a predicate that returns a promise is awaited, not taken as truthy."""
    deadline = time.monotonic() + (timeout or DEFAULT_TIMEOUT_MS) / 1000
    while True:
        try:
            value = page.evaluate(expression, arg)
        except Exception as error:  # a navigation under way: not there yet, evaluate again
            if NAVIGATED not in str(error) or time.monotonic() > deadline:
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise EngineError(f"timed out waiting for {expression!r}")
        time.sleep(0.1)
