"""Host tools from the Python client: functions of this process, called from the sandbox."""

from __future__ import annotations

import pytest

from tests.client.conftest import Loop
from wasmbox import Host, Sandbox
from wasmbox.tools import ToolFunction, tool_spec

pytestmark = pytest.mark.browser


def lookup_price(sku: str, currency: str = "EUR") -> dict[str, object]:
    """The price of a product."""
    if sku != "A1":
        raise KeyError(f"no such sku: {sku}")
    return {"sku": sku, "price": 9.5, "currency": currency}


async def stock(sku: str) -> int:
    """Units in stock."""
    return 3


def test_the_schema_comes_from_the_signature() -> None:
    spec = tool_spec("lookup_price", lookup_price)
    assert spec["description"] == "The price of a product."
    assert spec["parameters"] == {
        "type": "object",
        "properties": {"sku": {"type": "string"}, "currency": {"type": "string"}},
        "required": ["sku"],
        "additionalProperties": False,
    }


def test_python_functions_answer_the_sandbox(loop: Loop, host: Host) -> None:
    tools: dict[str, ToolFunction] = {"lookup_price": lookup_price, "stock": stock}
    sb = loop(Sandbox.create(host=host, tools=tools))
    try:
        code = (
            "from wasmbox import tools, ToolError\n"
            "p = await tools.lookup_price(sku='A1')\n"
            "n = await tools.stock(sku='A1')\n"
            "try:\n    await tools.lookup_price(sku='B2')\n"
            "except ToolError as e:\n    why = str(e)\n"
            "(p['price'] * n, why)"
        )
        result = loop(sb.execute(code))
        assert result.outcome == "OUTCOME_OK", result.error
        assert result.text == "(28.5, \"'no such sku: B2'\")"
        assert [c.name for c in result.audit.tool_calls] == [
            "lookup_price",
            "stock",
            "lookup_price",
        ]
        env = loop(sb.environment())
        assert [t.signature for t in env.tools] == [
            "lookup_price(*, sku: str, currency: str = ...) -> Any",
            "stock(*, sku: str) -> Any",
        ]
    finally:
        loop(sb.close())


def test_a_resumed_session_is_given_its_tools_again(loop: Loop, host: Host) -> None:
    """Tools are never saved: `resume(tools=...)` grants them again, and the names the session
    bound to them call these."""
    tools: dict[str, ToolFunction] = {"lookup_price": lookup_price}
    sb = loop(Sandbox.create(persist=True, host=host, tools=tools))
    bound = loop(sb.execute("from wasmbox import tools\nprice = tools.lookup_price\n1"))
    assert bound.outcome == "OUTCOME_OK", bound.error
    loop(sb.close())
    again = loop(Sandbox.resume(sb.id, host=host, tools={"lookup_price": lookup_price}))
    try:
        result = loop(again.execute("(await price(sku='A1'))['price']"))
        assert result.outcome == "OUTCOME_OK", result.error
        assert result.text == "9.5"
        assert [c.name for c in result.audit.tool_calls] == ["lookup_price"]
    finally:
        loop(again.delete())
