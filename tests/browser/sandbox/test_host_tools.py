"""Host tools and input(): Python calls functions of the page through a JSON-only bridge.

In both modes (interrupt: a synchronous call blocks; terminate-only: it must be awaited), in every
engine WASMBOX_BROWSERS selects. The page's tools (tests/browser/pages/sdk-sandbox.js) log each
call, so a test can tell that a refused call never reached its handler. The abuse tests try to
get anything but JSON across, both ways, and check the page is unharmed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser

IMPORT = "from wasmbox import tools, ToolError\n"


@pytest.fixture(scope="module")
def tool_box(sdk: SdkPage) -> str:
    """One sandbox with the page's test tools, shared by the module's tests."""
    sandbox_id: str = sdk.page.evaluate("() => hostTools.create()")
    return sandbox_id


@pytest.fixture(scope="module")
def mode(sdk: SdkPage, tool_box: str) -> str:
    mode: str = sdk.call(tool_box, "environment")["mode"]
    return mode


def handler_calls(sdk: SdkPage) -> list[Any]:
    calls: list[Any] = sdk.page.evaluate("() => hostTools.log.splice(0)")
    return calls


def value(result: dict[str, Any]) -> Any:
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    return result["value"]["text/plain"]


def test_an_awaited_tool_returns_json_and_is_audited(sdk: SdkPage, tool_box: str) -> None:
    handler_calls(sdk)
    result = sdk.run(
        tool_box, IMPORT + "p = await tools.price(sku='A1')\n(p['eur'], type(p).__name__)"
    )
    assert value(result) == "(9.5, 'dict')"
    [call] = result["audit"]["toolCalls"]
    assert (call["name"], call["ok"], call["error"]) == ("price", True, None)
    assert call["argumentsBytes"] == len('{"sku": "A1"}')
    assert call["ms"] >= 0
    assert handler_calls(sdk) == [["price", {"sku": "A1"}]]


def test_a_synchronous_call_blocks_or_says_to_await(sdk: SdkPage, tool_box: str, mode: str) -> None:
    result = sdk.run(tool_box, IMPORT + "tools.price(sku='A1')['sku']")
    if mode == "interrupt":
        assert value(result) == "'A1'"
    else:
        assert result["error"]["name"] == "ToolError"
        assert "await tools.price" in result["error"]["message"]
        assert "terminate-only" in result["error"]["message"]
        assert result["audit"]["toolCalls"] == []


def test_one_program_calls_many_tools_at_once(sdk: SdkPage, tool_box: str) -> None:
    code = IMPORT + (
        "import asyncio\n"
        "got = await asyncio.gather(*(tools.echo(value=i) for i in range(5)))\n"
        "[g['got'] for g in got]"
    )
    result = sdk.run(tool_box, code)
    assert value(result) == "[0, 1, 2, 3, 4]"
    assert len(result["audit"]["toolCalls"]) == 5


def test_bad_arguments_are_refused_before_the_handler_runs(sdk: SdkPage, tool_box: str) -> None:
    handler_calls(sdk)
    code = IMPORT + (
        "try:\n    await tools.price(sku=5)\nexcept ToolError as e:\n    message = str(e)\nmessage"
    )
    result = sdk.run(tool_box, code)
    assert "do not match its parameters" in value(result)
    assert "string" in value(result)
    assert handler_calls(sdk) == []
    [call] = result["audit"]["toolCalls"]
    assert call["ok"] is False
    assert "do not match" in call["error"]


def test_a_handler_error_becomes_a_tool_error(sdk: SdkPage, tool_box: str) -> None:
    result = sdk.run(tool_box, IMPORT + "await tools.price(sku='B2')")
    assert result["outcome"] == "OUTCOME_FAILED"
    assert result["error"]["name"] == "ToolError"
    assert result["error"]["message"] == "no such sku: B2"


def test_a_tool_call_past_the_deadline_ends_the_run(sdk: SdkPage, tool_box: str, mode: str) -> None:
    sdk.run(tool_box, "kept = 42")
    result = sdk.run(tool_box, IMPORT + "await tools.slow(ms=60000)", timeoutMs=1500)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    assert result["stateLost"] is (mode == "terminate-only")
    [call] = result["audit"]["toolCalls"]
    assert call["name"] == "slow"
    if mode == "interrupt":
        assert value(sdk.run(tool_box, "kept")) == "42"
        # Blocked in a synchronous call, the worker still obeys the deadline.
        blocked = sdk.run(tool_box, IMPORT + "tools.slow(ms=60000)", timeoutMs=1500)
        assert blocked["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
        assert blocked["stateLost"] is False


def test_input_gets_the_hosts_line(sdk: SdkPage, tool_box: str, mode: str) -> None:
    code = "name = input('Name? ')\nf'hello {name}'"
    result = sdk.page.evaluate(
        "([id, code]) => hostTools.runWithInput(id, code, ['Ada'])", [tool_box, code]
    )
    if mode == "interrupt":
        assert value(result) == "'hello Ada'"
        assert result["stdout"] == "Name? Ada\n"
        assert result["prompts"] == ["Name? "]
    else:
        assert result["error"]["name"] == "EOFError"
        assert "terminate-only" in result["error"]["message"]
    plain = sdk.run(tool_box, "input('x')")
    assert plain["error"]["name"] == "EOFError"
    assert "no stdin" in plain["error"]["message"]


# --- abuse: nothing but JSON crosses, and the page is unharmed ---------------------------------


def test_a_result_that_is_not_json_is_refused(sdk: SdkPage, tool_box: str) -> None:
    code = IMPORT + (
        "out = {}\n"
        "for kind in ['function', 'cycle', 'map', 'window', 'deep', 'huge', 'nan']:\n"
        "    try:\n        out[kind] = await tools.bad(kind=kind)\n"
        "    except ToolError as e:\n        out[kind] = str(e)\n"
        "out"
    )
    result = sdk.run(tool_box, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    got = json.loads(result["value"]["application/json"])
    for kind, why in [
        ("function", "function is not JSON data"),
        ("cycle", "cycle"),
        ("map", "Map object is not JSON data"),
        ("window", "not JSON data"),
        ("deep", "nested more than"),
        ("huge", "byte cap"),
        ("nan", "not a JSON number"),
    ]:
        assert got[kind].startswith("bad answered with something that is not JSON data"), kind
        assert why in got[kind], kind
    assert sdk.page.evaluate("hostTools.pageIntact()")


def test_prototype_keys_arrive_as_plain_data(sdk: SdkPage, tool_box: str) -> None:
    handler_calls(sdk)
    code = IMPORT + (
        "v = {'__proto__': {'polluted': True}, 'constructor': {'prototype': {'polluted': True}}}\n"
        "got = await tools.echo(value=v)\n"
        "sorted(got['got'])"
    )
    result = sdk.run(tool_box, code)
    assert value(result) == "['__proto__', 'constructor']"
    # Read in the page: a structured copy to the test would drop the `__proto__` key itself.
    keys = sdk.page.evaluate(
        "() => hostTools.log.map(([name, args]) => [name, Object.keys(args.value)])"
    )
    assert keys == [["echo", ["__proto__", "constructor"]]]
    assert sdk.page.evaluate(
        "Object.getPrototypeOf(hostTools.log[0][1].value) === Object.prototype"
    )
    handler_calls(sdk)
    assert sdk.page.evaluate("hostTools.pageIntact()")


def test_huge_or_deep_arguments_never_reach_the_handler(sdk: SdkPage, tool_box: str) -> None:
    handler_calls(sdk)
    code = IMPORT + (
        "deep = 0\nfor _ in range(100):\n    deep = [deep]\n"
        "why = []\n"
        "for arg in ['x' * 2_000_000, deep]:\n"
        "    try:\n        await tools.echo(value=arg)\n"
        "    except ToolError as e:\n        why.append(str(e))\n"
        "why"
    )
    result = sdk.run(tool_box, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    text = result["value"]["text/plain"]
    assert "byte cap" in text
    assert "nested more than" in text
    assert handler_calls(sdk) == []


def test_an_undeclared_tool_is_refused_by_the_host(sdk: SdkPage, tool_box: str) -> None:
    """Past Python's own check, straight into the worker's bridge: the host still refuses."""
    handler_calls(sdk)
    code = (
        "import json\nfrom wasmbox_kernel import host\n"
        "bridge = host._host().bridge\n"
        "json.loads(await bridge.call('tool', 'fetch', '{\"url\": \"https://example.com\"}'))"
    )
    result = sdk.run(tool_box, code)
    answer = json.loads(result["value"]["application/json"])
    assert answer["ok"] is False
    assert "grants no tool fetch" in answer["error"]
    assert handler_calls(sdk) == []


def test_a_flood_of_calls_is_capped(sdk: SdkPage, tool_box: str) -> None:
    handler_calls(sdk)
    code = IMPORT + (
        "import asyncio\n"
        "calls = [tools.slow(ms=3000) for _ in range(100)]\n"
        "got = await asyncio.gather(*calls, return_exceptions=True)\n"
        "refused = [str(g) for g in got if isinstance(g, ToolError)]\n"
        "(sum(g == 'late' for g in got), len(refused), refused[0] if refused else '')"
    )
    result = sdk.run(tool_box, code)
    answered, refused, why = eval(value(result))  # a tuple of an int, an int and a str
    assert answered == 64
    assert refused == 36
    assert "may wait at once" in why
    assert len(handler_calls(sdk)) == 64
    assert sdk.page.evaluate("hostTools.pageIntact()")
    assert value(sdk.run(tool_box, IMPORT + "(await tools.echo(value=1))['got']")) == "1"


def test_a_call_after_its_run_ended_is_refused(sdk: SdkPage, tool_box: str) -> None:
    handler_calls(sdk)
    sdk.run(
        tool_box,
        IMPORT + "import asyncio\n"
        "async def later():\n    await asyncio.sleep(0.2)\n    return await tools.echo(value=1)\n"
        "task = asyncio.ensure_future(later())",
    )
    sdk.page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 600))")
    result = sdk.run(tool_box, "str(task.exception())")
    assert "has ended" in value(result)
    assert handler_calls(sdk) == []


CLOSE_DURING_A_CALL = """async () => {
  const id = await hostTools.create();
  const sandbox = wasmbox.Sandbox.get(id);
  const code = "from wasmbox import tools\\nawait tools.slow(ms=1500)";
  const running = sandbox.execute(code);
  const called = () => hostTools.log.some(([name]) => name === "slow");
  while (!called()) await new Promise((r) => setTimeout(r, 20));
  await sandbox.close();
  const result = await running;
  const errors = [];
  addEventListener("error", (event) => errors.push(String(event.message)));
  addEventListener("unhandledrejection", (event) => errors.push(String(event.reason)));
  await new Promise((r) => setTimeout(r, 2000)); // the handler answers, late, to a closed sandbox
  const again = await sandbox.execute("1").then(() => "ran", (e) => e.type);
  return { outcome: result.outcome, errors, again };
}"""


def test_a_call_pending_at_close_is_dropped_and_nothing_more_runs(sdk: SdkPage) -> None:
    handler_calls(sdk)
    got = sdk.page.evaluate(CLOSE_DURING_A_CALL)
    assert got == {"outcome": "OUTCOME_CANCELLED", "errors": [], "again": "closed"}
    assert [name for name, _ in handler_calls(sdk)] == ["slow"]
    assert sdk.page.evaluate("hostTools.pageIntact()")


BIND_TOOLS = (
    IMPORT + "import wasmbox\nprice = tools.price\nechoed = (await tools.echo(value=1))['got']\n"
    "echoed"
)
AFTER_RESUME = (
    "try:\n    await tools.price(sku='B2')\nexcept ToolError as e:\n    refused = str(e)\n"
    "((await price(sku='A1'))['eur'], (await wasmbox.tools.echo(value=2))['got'], echoed, refused)"
)


def test_a_resumed_sandbox_calls_the_tools_it_is_given_again(sdk: SdkPage) -> None:
    """Tools are functions of the page, never saved: `Sandbox.resume(id, { tools })` grants them
    again, and the names the session bound to tools (`tools`, `wasmbox`, `price`, `ToolError`)
    call them; resumed without tools, a call says it is not granted."""
    sandbox_id: str = sdk.page.evaluate(
        "() => hostTools.create({ persist: true, timeoutMs: 120000 })"
    )
    value(sdk.run(sandbox_id, BIND_TOOLS))
    sdk.call(sandbox_id, "close")
    report = sdk.page.evaluate("id => hostTools.resume(id, true)", sandbox_id)
    assert {"tools", "ToolError", "wasmbox", "price", "echoed"} <= set(report["restored"])
    assert report["notRestored"] == []
    handler_calls(sdk)
    assert value(sdk.run(sandbox_id, AFTER_RESUME)) == "(9.5, 2, 1, 'no such sku: B2')"
    assert [name for name, _ in handler_calls(sdk)] == ["price", "price", "echo"]
    sdk.call(sandbox_id, "close")
    sdk.page.evaluate("id => hostTools.resume(id, false)", sandbox_id)
    refused = sdk.run(sandbox_id, "await price(sku='A1')")
    assert refused["error"]["name"] == "ToolError"
    assert "not granted" in refused["error"]["message"]
    assert handler_calls(sdk) == []
    sdk.page.evaluate("id => wasmbox.Sandbox.delete(id)", sandbox_id)
