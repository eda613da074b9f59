"""How a model asked to run code: OpenAI `tool_calls`, or the call written as text by models and
servers without function calling. The same rules as the SDK's agent
(wasm_runtime/sdk/agent/reply-forms.ts, docs/agent.md), so both loops read a model alike.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

TOOL_NAME = "run_python"
Form = Literal["tool_calls", "fenced-json", "hermes", "functions-prefix", "bare-python", "none"]


@dataclass(frozen=True)
class Call:
    """One call: its code, or why it cannot be run (told back to the model)."""

    code: str | None = None
    problem: str | None = None


@dataclass(frozen=True)
class Classified:
    form: Form
    calls: list[Call]


def code_in(args: Any) -> Call | None:
    code = args if isinstance(args, str) else args.get("code") if isinstance(args, dict) else None
    return Call(code=code) if isinstance(code, str) and code.strip() else None


def parse_arguments(text: str) -> Any:
    """JSON arguments; empty is `{}`; an object sent twice back to back is read once."""
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except ValueError:
        first = leading_json_object(text)
        if first is None:
            return None
        value, end = first
        rest = text[end:].strip()
        return value if rest in ("", text[:end].strip()) else None


def leading_json_object(text: str) -> tuple[Any, int] | None:
    """The JSON object at the start of `text` and where it ends; None when none parses."""
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return None
    start = len(text) - len(stripped)
    try:
        value, end = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None
    return value, end


def code_of_tool_call(name: str, arguments: str) -> Call:
    if name != TOOL_NAME:
        return Call(problem=f"there is no tool named {json.dumps(name)}")
    args = parse_arguments(arguments)
    if args is None:
        return Call(problem="its arguments are not valid JSON")
    return code_in(args) or Call(problem="its `code` argument is missing or empty")


def named_call(value: Any) -> Call | None:
    """A call in the shapes models write; None when the object names no tool at all."""
    if not isinstance(value, dict):
        return None
    inner = value.get("function_call") or (
        value["function"] if isinstance(value.get("function"), dict) else None
    )
    name = value.get("name") or value.get("tool")
    if name is None and isinstance(value.get("function"), str):
        name = value["function"]
    if name is None and isinstance(inner, dict):
        name = inner.get("name")
    if not isinstance(name, str):
        return None
    if name != TOOL_NAME:
        return Call(problem=f"there is no tool named {json.dumps(name)}")
    args: Any = value
    for key in ("arguments", "parameters", "args"):
        if key in value:
            args = value[key]
            break
    else:
        if isinstance(inner, dict):
            args = inner.get("arguments", inner.get("parameters", value))
    if isinstance(args, str):
        parsed = parse_arguments(args)
        args = parsed if parsed is not None else args
    return code_in(args) or Call(problem="its `code` argument is missing or empty")


HERMES = re.compile(r"<tool_call>\s*([\s\S]*?)\s*(?:</tool_call>|$)")
PREFIX = re.compile(rf"(?:^|\n)[ \t]*functions\.{TOOL_NAME}[ \t]*:?[ \t]*")
FENCE = re.compile(r"```(?:json|tool_call|tool|)[ \t]*\n([\s\S]*?)\n?```")
PREFIX_FENCE = re.compile(r"^```[\w-]*[ \t]*\n([\s\S]*?)(?:\n?```|$)")
PYTHON_BLOCK = re.compile(r"```(?:python3?|py)[ \t]*\n([\s\S]*?)```")


def hermes(text: str) -> list[Call]:
    calls = []
    for body in HERMES.findall(text):
        parsed = leading_json_object(body)
        if parsed is None:
            calls.append(Call(problem="the text inside <tool_call> is not valid JSON"))
        else:
            calls.append(named_call(parsed[0]) or Call(problem="the <tool_call> names no tool"))
    return calls


def functions_prefix(text: str) -> list[Call]:
    match = PREFIX.search(text)
    if not match:
        return []
    rest = text[match.end() :].strip()
    fenced = PREFIX_FENCE.match(rest)
    body = fenced.group(1) if fenced else rest
    if body.lstrip().startswith("{"):
        parsed = leading_json_object(body)
        if parsed is not None:
            call = named_call(parsed[0]) or code_in(parsed[0])
            return [call or Call(problem="its `code` argument is missing or empty")]
        if not fenced:
            return [Call(problem="the arguments after functions.run_python: are not valid JSON")]
    return [code_in(body) or Call(problem="there is no code after functions.run_python:")]


def fenced_json(text: str) -> list[Call]:
    bodies = FENCE.findall(text)
    whole = text.strip()
    if whole.startswith(("{", "[")):
        bodies.append(whole)
    for body in bodies:
        try:
            value = json.loads(body)
        except ValueError:
            continue
        items = value if isinstance(value, list) else [value]
        calls = [call for item in items if (call := named_call(item)) is not None]
        if calls:
            return calls
    return []


def bare_python(text: str) -> list[Call]:
    match = PYTHON_BLOCK.search(text)
    return [Call(code=match.group(1))] if match and match.group(1).strip() else []


TEXT_FORMS: list[tuple[Form, Any]] = [
    ("hermes", hermes),
    ("functions-prefix", functions_prefix),
    ("fenced-json", fenced_json),
    ("bare-python", bare_python),
]


def classify_reply(content: str, tool_calls: list[tuple[str, str]]) -> Classified:
    """The reply's form and its calls; `tool_calls` are (name, arguments) as streamed."""
    if tool_calls:
        return Classified("tool_calls", [code_of_tool_call(n, a) for n, a in tool_calls])
    for form, find in TEXT_FORMS:
        if calls := find(content):
            return Classified(form, calls)
    return Classified("none", [])
