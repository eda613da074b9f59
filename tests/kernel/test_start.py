"""`Kernel.start`: a plain cell is done within the call; one with top-level await is a task."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from wasmbox_kernel import Kernel
from wasmbox_kernel.context import DISPATCHER


def start(kernel: Kernel, code: str) -> Any:
    return kernel.start(code, run_id="r")


def test_a_plain_cell_gives_its_result_without_an_event_loop(kernel: Kernel) -> None:
    result = start(kernel, "x = 40\nx + 2")
    assert result["outcome"] == "OUTCOME_OK"
    assert result["value"]["text/plain"] == "42"


def test_failures_and_refusals_come_back_at_once(make_kernel) -> None:
    kernel = make_kernel(policy="default")
    assert start(kernel, "1/0")["error"]["name"] == "ZeroDivisionError"
    assert start(kernel, "def f(:")["outcome"] == "OUTCOME_FAILED"
    assert start(kernel, "import ctypes")["outcome"] == "OUTCOME_POLICY_VIOLATION"
    assert start(kernel, "__import__('ct' + 'ypes')")["outcome"] == "OUTCOME_POLICY_VIOLATION"


def test_on_cell_brackets_the_cell_in_the_call(kernel: Kernel) -> None:
    calls: list[bool] = []
    kernel.start("1", run_id="r", on_cell=calls.append)
    assert calls == [True, False]


def test_the_run_context_does_not_leak_into_the_caller(kernel: Kernel) -> None:
    seen = start(kernel, "from wasmbox_kernel.context import DISPATCHER\nDISPATCHER.current()")
    assert "RunContext" in seen["value"]["text/plain"]
    assert DISPATCHER.current() is None


def test_a_cell_with_top_level_await_is_a_task(kernel: Kernel, run_async: Any) -> None:
    async def main() -> tuple[bool, Any]:
        started = start(kernel, "import asyncio\nawait asyncio.sleep(0)\n'later'")
        return isinstance(started, asyncio.Future), await started

    is_task, result = run_async(main())
    assert is_task
    assert result["value"]["text/plain"] == "'later'"


def test_an_awaited_expression_alone_is_a_task_too(kernel: Kernel, run_async: Any) -> None:
    async def main() -> Any:
        started = start(kernel, "import asyncio\nawait asyncio.sleep(0, 'v')")
        assert isinstance(started, asyncio.Future)
        return await started

    assert run_async(main())["value"]["text/plain"] == "'v'"


CONTEXT_VAR = "import contextvars\nlevel = contextvars.ContextVar('level', default=0)"


def test_a_context_variable_one_cell_sets_is_what_the_next_gets(
    kernel: Kernel, run_async: Any
) -> None:
    """As in a REPL: `decimal.setcontext` in one cell holds in the next, awaiting or not."""
    assert start(kernel, CONTEXT_VAR)["outcome"] == "OUTCOME_OK"
    start(kernel, "import decimal\ndecimal.setcontext(decimal.Context(prec=5))\nlevel.set(1)")
    seen = start(kernel, "decimal.getcontext().prec, level.get()")
    assert seen["value"]["text/plain"] == "(5, 1)"

    async def main() -> Any:
        await start(kernel, "import asyncio\nawait asyncio.sleep(0)\nlevel.set(2)")
        return start(kernel, "level.get()")

    assert run_async(main())["value"]["text/plain"] == "2"
    assert DISPATCHER.current() is None


def test_start_json_gives_the_result_as_its_json_text(kernel: Kernel) -> None:
    text = kernel.start_json("x = 40\nx + 2", run_id="r")
    assert isinstance(text, str)
    assert json.loads(text) == json.loads(kernel.result_json(start(kernel, "x = 40\nx + 2")))
    assert json.loads(text)["value"]["text/plain"] == "42"


def test_start_json_of_a_cell_with_top_level_await_is_a_task_giving_the_text(
    kernel: Kernel, run_async: Any
) -> None:
    async def main() -> tuple[bool, Any]:
        started = kernel.start_json("import asyncio\nawait asyncio.sleep(0)\n'later'", run_id="r")
        assert isinstance(started, asyncio.Future)
        return True, await started

    is_task, text = run_async(main())
    assert is_task
    assert json.loads(text)["value"]["text/plain"] == "'later'"
