"""Host tools from Python: `Sandbox.create(tools={"name": callable})`.

Each callable becomes a tool of the SDK (`Sandbox.create({ tools })`, docs/sdk.md): its
description is its docstring, its parameters a JSON Schema made from its signature (keyword
arguments; annotations of str, int, float, bool, list, dict and None map to JSON types, anything
else is left open). The sandbox's Python calls it with JSON arguments the SDK has checked against
that schema; what it returns must be JSON data. It runs in this process, on its event loop
(a coroutine function is awaited).
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

ToolFunction = Callable[..., Any]
"""A function of keyword arguments returning JSON data, or a coroutine function."""

_JSON_TYPES: dict[object, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
    type(None): "null",
}


def _json_type(annotation: object) -> dict[str, Any]:
    origin = typing.get_origin(annotation) or annotation
    if origin in (typing.Union, types.UnionType):
        members = [_json_type(arg) for arg in typing.get_args(annotation)]
        kinds = [m["type"] for m in members if "type" in m]
        return {"type": kinds} if len(kinds) == len(members) else {}
    kind = _JSON_TYPES.get(origin)
    return {"type": kind} if kind else {}


def tool_spec(name: str, function: ToolFunction) -> dict[str, Any]:
    """`{name, description, parameters}` for the SDK; a TypeError names what cannot be a tool."""
    if not callable(function):
        raise TypeError(f"tool {name!r} must be a callable, not {type(function).__name__}")
    signature = inspect.signature(function)
    try:
        hints = typing.get_type_hints(function)
    except Exception:  # an annotation that does not resolve: that parameter stays open
        hints = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(f"tool {name!r}: {param.name} is positional-only; tools take keywords")
        properties[param.name] = _json_type(hints.get(param.name, Any))
        if param.default is param.empty:
            required.append(param.name)
    takes_more = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if not takes_more:
        parameters["additionalProperties"] = False
    return {
        "name": name,
        "description": inspect.getdoc(function) or "",
        "parameters": parameters,
    }


def tool_specs(tools: Mapping[str, ToolFunction]) -> list[dict[str, Any]]:
    return [tool_spec(name, function) for name, function in tools.items()]


async def call_tool(tools: Mapping[str, ToolFunction], name: str, args: str) -> str:
    """The page's `wasmboxTool(token, name, args)`: the answer as a JSON envelope, never raised
    (the page turns `error` into the handler's error, which Python in the sandbox gets as
    ToolError)."""
    function = tools.get(name)
    if function is None:
        return json.dumps({"ok": False, "error": f"no tool {name}"})
    try:
        result = function(**json.loads(args))
        if inspect.isawaitable(result):
            result = await result
        return json.dumps({"ok": True, "value": result}, allow_nan=False)
    except Exception as exc:
        return json.dumps({"ok": False, "error": str(exc) or type(exc).__name__})
