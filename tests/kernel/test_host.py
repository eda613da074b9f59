"""The host bridge as the kernel sees it: `from wasmbox import tools`, ToolError, input()."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from wasmbox_kernel.host import HostBridge


class FakeBridge:
    """The worker's bridge (sandbox/host-calls.ts), answering from a table."""

    def __init__(self, answers: dict[str, Any], *, can_block: bool = True, input: bool = False):
        tools = [
            {"name": n, "description": f"{n} tool", "signature": f"{n}(*, x: int) -> Any"}
            for n in answers
        ]
        self.spec = json.dumps({"tools": tools, "input": input, "can_block": can_block})
        self.answers = answers
        self.calls: list[tuple[str, str, Any, bool]] = []

    def _envelope(self, kind: str, name: str, args: str) -> str:
        answer = self.answers.get(name)
        if isinstance(answer, Exception):
            return json.dumps({"ok": False, "value": "", "error": str(answer), "stopped": False})
        if answer == "STOP":
            return json.dumps({"ok": False, "value": "", "error": "", "stopped": True})
        return json.dumps({"ok": True, "value": json.dumps(answer), "error": "", "stopped": False})

    def call_sync(self, kind: str, name: str, args: str) -> str:
        self.calls.append((kind, name, json.loads(args), True))
        return self._envelope(kind, name, args)

    async def call(self, kind: str, name: str, args: str) -> str:
        self.calls.append((kind, name, json.loads(args), False))
        return self._envelope(kind, name, args)


def bridge(answers: dict[str, Any], **kwargs: Any) -> HostBridge:
    return FakeBridge(answers, **kwargs)


def test_a_synchronous_call_returns_the_hosts_json(run, kernel):
    host = bridge({"price": {"sku": "A1", "eur": 9.5}})
    result = run(kernel, "from wasmbox import tools\ntools.price(x=1)['eur']", host=host)
    assert result["value"]["text/plain"] == "9.5"
    assert host.calls == [("tool", "price", {"x": 1}, True)]  # type: ignore[attr-defined]


def test_an_awaited_call_goes_the_async_way(run, kernel):
    host = bridge({"price": [1, 2]})
    result = run(kernel, "from wasmbox import tools\nawait tools.price(x=2)", host=host)
    assert result["value"]["text/plain"] == "[1, 2]"
    assert host.calls[0][3] is False  # type: ignore[attr-defined]


def test_a_refusal_raises_tool_error_with_the_hosts_message(run, kernel):
    host = bridge({"price": RuntimeError("no such sku")})
    code = (
        "import wasmbox\ntry:\n    wasmbox.tools.price(x=1)\n"
        "except wasmbox.ToolError as e:\n    message = str(e)\nmessage"
    )
    result = run(kernel, code, host=host)
    assert result["value"]["text/plain"] == "'no such sku'"


def test_a_synchronous_call_where_nothing_can_block_says_to_await(run, kernel):
    result = run(
        kernel,
        "from wasmbox import tools\ntools.price(x=1)",
        host=bridge({"price": 1}, can_block=False),
    )
    assert result["error"]["name"] == "ToolError"
    assert "await tools.price" in result["error"]["message"]
    assert "terminate-only" in result["error"]["message"]


def test_an_unknown_tool_names_the_ones_offered(run, kernel):
    result = run(kernel, "from wasmbox import tools\ntools.nope(x=1)", host=bridge({"price": 1}))
    assert result["error"]["name"] == "AttributeError"
    assert "price" in result["error"]["message"]


def test_arguments_must_be_keywords_and_json(run, kernel):
    host = bridge({"price": 1})
    positional = run(kernel, "from wasmbox import tools\ntools.price(1)", host=host)
    assert positional["error"]["name"] == "TypeError"
    not_json = run(kernel, "from wasmbox import tools\ntools.price(x=object())", host=host)
    assert not_json["error"]["name"] == "ToolError"
    huge = run(kernel, "from wasmbox import tools\ntools.price(x='x' * 2_000_000)", host=host)
    assert "byte cap" in huge["error"]["message"]
    assert host.calls == []  # type: ignore[attr-defined]


def test_a_stopped_call_interrupts_the_run(run, kernel):
    result = run(
        kernel, "from wasmbox import tools\ntools.price(x=1)", host=bridge({"price": "STOP"})
    )
    assert result["outcome"] == "OUTCOME_CANCELLED"


def test_input_asks_the_host_with_the_prompt_and_echoes_the_line(run, kernel):
    host = bridge({"input": "Ada"}, input=True)
    result = run(kernel, "name = input('Name? ')\nname", host=host)
    assert result["value"]["text/plain"] == "'Ada'"
    assert result["stdout"] == "Name? Ada\n"
    assert host.calls == [("input", "input", "Name? ", True)]  # type: ignore[attr-defined]


def test_input_without_an_answerer_raises_eof_as_before(run, kernel):
    result = run(kernel, "input('x')", host=bridge({}, input=False))
    assert result["error"]["name"] == "EOFError"
    assert "no stdin" in result["error"]["message"]


def test_input_where_nothing_can_block_says_why(run, kernel):
    result = run(kernel, "input('x')", host=bridge({}, input=True, can_block=False))
    assert result["error"]["name"] == "EOFError"
    assert "terminate-only" in result["error"]["message"]


def test_the_module_is_the_cells_only_during_a_run(run, kernel):
    before = sys.modules.get("wasmbox")
    result = run(
        kernel, "import wasmbox\nsorted(dir(wasmbox.tools))", host=bridge({"a": 1, "b": 2})
    )
    assert result["value"]["text/plain"] == "['a', 'b']"
    assert sys.modules.get("wasmbox") is before


def test_calls_in_a_generator_feeding_async_code_are_awaitable(run, kernel):
    host = bridge({"echo": 1})
    code = (
        "import asyncio\nfrom wasmbox import tools\n"
        "await asyncio.gather(*(tools.echo(x=i) for i in range(3)))"
    )
    result = run(kernel, code, host=host)
    assert result["value"]["text/plain"] == "[1, 1, 1]"
    assert {call[3] for call in host.calls} == {False}  # type: ignore[attr-defined]


def test_a_plain_function_called_from_async_code_blocks(run, kernel):
    host = bridge({"echo": 2})
    code = (
        "from wasmbox import tools\ndef f():\n    return tools.echo(x=1)\n"
        "import asyncio\nawait asyncio.sleep(0)\nf()"
    )
    result = run(kernel, code, host=host)
    assert result["value"]["text/plain"] == "2"
    assert host.calls[0][3] is True  # type: ignore[attr-defined]


def test_names_for_the_tools_work_again_after_a_save_and_restore(run, make_kernel):
    """A resumed session's names (`tools`, `wasmbox`, a tool bound to a name, `ToolError`) are
    the new worker's: they call whatever tools the host grants the new run."""
    code = (
        "import wasmbox\nfrom wasmbox import tools, ToolError\n"
        "price = tools.price\nmodule_tools = wasmbox.tools\n"
    )
    first = make_kernel()
    assert run(first, code, host=bridge({"price": 1}))["outcome"] == "OUTCOME_OK"
    saved = first.save_state()
    assert saved["skipped"] == []
    second = make_kernel()
    loaded = second.load_state(saved["data"])
    assert loaded["failed"] == []
    assert {"wasmbox", "tools", "ToolError", "price", "module_tools"} <= set(loaded["restored"])
    host = bridge({"price": {"eur": 2}, "other": RuntimeError("refused")})
    check = (
        "try:\n    tools.other(x=1)\nexcept ToolError as e:\n    caught = str(e)\n"
        "price(x=1), tools.price(x=2), module_tools.price(x=3), wasmbox.tools.price(x=4), caught"
    )
    result = run(second, check, host=host)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"]["text/plain"] == (
        "({'eur': 2}, {'eur': 2}, {'eur': 2}, {'eur': 2}, 'refused')"
    )
    assert [c[2] for c in host.calls] == [{"x": 1}, {"x": 1}, {"x": 2}, {"x": 3}, {"x": 4}]  # type: ignore[attr-defined]


def test_a_restored_tool_the_new_run_is_not_granted_says_so(run, make_kernel):
    first = make_kernel()
    run(first, "from wasmbox import tools\nprice = tools.price", host=bridge({"price": 1}))
    second = make_kernel()
    assert second.load_state(first.save_state()["data"])["failed"] == []
    result = run(second, "price(x=1)", host=bridge({}))
    assert result["error"]["name"] == "ToolError"
    assert "not granted" in result["error"]["message"]


def test_tools_needs_no_import_in_a_run_granted_tools_and_only_there(run, kernel):
    result = run(kernel, "await tools.price(x=1)", host=bridge({"price": 7}))
    assert result["value"]["text/plain"] == "7"
    without = run(kernel, "tools", host=None)
    assert without["error"]["name"] == "NameError"
    assert "tools" not in kernel.namespace  # a builtin for the run: not a saved variable


def test_a_variable_named_tools_wins_over_the_host_tools(run, kernel):
    result = run(kernel, "tools = ['hammer']\ntools", host=bridge({"price": 1}))
    assert result["value"]["text/plain"] == "['hammer']"


def test_a_tool_called_by_its_bare_name_gets_the_call_as_written(run, kernel):
    result = run(kernel, "price(x=1)", host=bridge({"price": 1}))
    assert result["error"]["name"] == "NameError"
    assert "await tools.price(...)" in result["error"]["hint"]


@pytest.mark.filterwarnings("ignore:coroutine .* was never awaited")  # the mistake shown
def test_a_call_used_without_await_gets_told_to_await_it(run, kernel):
    code = "import asyncio\nawait asyncio.sleep(0)\norder = tools.order(x=1)\norder['sku']"
    result = run(kernel, code, host=bridge({"order": {"sku": "B"}}))
    assert result["error"]["name"] == "TypeError"
    assert "value = await tools.name(...)" in result["error"]["hint"]


def test_a_refused_argument_is_told_which_tool_gives_it(run, kernel):
    host = bridge({"order": {"sku": "B-2"}, "price": ValueError("unknown sku: X-1")})
    host.spec = json.dumps(
        {
            "tools": [
                {
                    "name": "order",
                    "description": "An order: its SKU.",
                    "signature": "order(*, order_id: str) -> Any",
                },
                {
                    "name": "price",
                    "description": "A price.",
                    "signature": "price(*, sku: str) -> Any",
                },
            ],
            "can_block": True,
        }
    )
    result = run(kernel, "tools.price(sku='X-1')", host=host)
    assert result["error"]["name"] == "ToolError"
    hint = result["error"]["hint"]
    assert "`sku` from tools.order(...)" in hint and "Never invent" in hint
    alone = run(
        kernel, "tools.order(order_id=1)", host=bridge({"order": ValueError("no such order")})
    )
    assert "hint" not in alone["error"]  # no other tool names an order id: nothing better to say


def test_a_run_given_no_bridge_has_no_tools_and_no_input(run, kernel):
    """The worker sends no bridge to a run given no tools and no input(): the same answers."""
    no_input = run(kernel, "input('x')")
    assert no_input["error"]["name"] == "EOFError"
    assert "no stdin" in no_input["error"]["message"]
    no_tools = run(kernel, "from wasmbox import tools\ntools.price(x=1)")
    assert no_tools["error"]["name"] == "AttributeError"
    assert "tools of this run: none" in no_tools["error"]["message"]
