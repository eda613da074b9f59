"""The loop: the model writes code, the sandbox runs it, the model reads the result, until it
answers. Every step is reported as a Gemini-shaped part the moment it is complete."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

from openai import AsyncOpenAI, omit
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam

from wasmbox.ask.forms import TOOL_NAME, Call, Classified, classify_reply
from wasmbox.report import result_text
from wasmbox.results import ExecutionResult
from wasmbox.sandbox import Sandbox

Part = dict[str, Any]

RUN_PYTHON_TOOL = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": (
            "Run Python code in the sandbox and get back its outcome, stdout, stderr, the value of "
            "the last expression, and any error with its traceback. Variables and files persist "
            "between calls."
        ),
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "The Python code to run."}},
            "required": ["code"],
        },
    },
}

USE_THE_TOOL = (
    "Code in a reply is not run. To run it, call the run_python tool with the code; then answer "
    "from its real output."
)
SAY_SOMETHING = "Your last reply was empty. Answer the question from the results above."
STEP_LIMIT = "No more code runs are allowed. Answer now from the results you have."


@dataclass
class Hooks:
    """Where the loop reports: whole parts, streamed text, and each run's full result."""

    part: Callable[[Part], None]
    text_delta: Callable[[str], None] = lambda _: None
    result: Callable[[ExecutionResult], Awaitable[None]] | None = None


@dataclass
class Turn:
    """One streamed reply of the model."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    def add_tool_deltas(self, deltas: list[Any]) -> None:
        for delta in deltas:
            index = delta.index if delta.index is not None else len(self.tool_calls) - 1
            if index < 0 or (delta.index is None and delta.id and self._last_id() != delta.id):
                index = len(self.tool_calls)
            while len(self.tool_calls) <= index:
                self.tool_calls.append({"id": "", "name": "", "arguments": ""})
            call = self.tool_calls[index]
            call["id"] = delta.id or call["id"]
            if delta.function is not None:
                if delta.function.name and call["name"] != delta.function.name:
                    call["name"] += delta.function.name
                call["arguments"] += delta.function.arguments or ""

    def _last_id(self) -> str:
        return str(self.tool_calls[-1]["id"]) if self.tool_calls else ""


def system_prompt(files: list[str]) -> str:
    listed = "\n".join(f"- {name}" for name in files) or "(none)"
    return (
        "You are a careful data analyst. You can run Python with the `run_python` tool and must "
        "use it for any computation, data question or plot: never guess what you can compute.\n"
        "Python 3.12 under Pyodide with numpy, pandas, matplotlib, scipy, scikit-learn, sympy; no "
        "network and no pip. Variables and files persist between runs; the last expression's value "
        "is shown like in Jupyter; matplotlib figures shown with plt.show() reach the user.\n"
        f"Files in the working directory:\n{listed}\n"
        "When a run fails, read the error, fix the code and run it again. When you answer, explain "
        "the real output you got."
    )


class AskLoop:
    def __init__(
        self, client: AsyncOpenAI, model: str, sandbox: Sandbox, hooks: Hooks, max_steps: int = 8
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.client = client
        self.model = model
        self.sandbox = sandbox
        self.hooks = hooks
        self.max_steps = max_steps
        self.parts: list[Part] = []

    def emit(self, part: Part) -> None:
        self.parts.append(part)
        self.hooks.part(part)

    async def ask(self, question: str, files: list[str]) -> list[Part]:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(files)},
            {"role": "user", "content": question},
        ]
        runs = 0
        nudged: set[str] = set()
        while True:
            tools = runs < self.max_steps
            turn = await self.stream_turn(messages, tools=tools)
            classified = classify_reply(
                turn.content, [(c["name"], c["arguments"]) for c in turn.tool_calls]
            )
            if classified.form == "bare-python" and "bare" not in nudged:
                nudged.add("bare")
                self.emit_text(turn.content)
                messages += [assistant(turn.content), {"role": "user", "content": USE_THE_TOOL}]
                continue
            if classified.form in ("none", "bare-python") or not tools:
                if turn.content.strip():
                    self.emit_text(turn.content)
                    return self.parts
                if "empty" not in nudged:
                    nudged.add("empty")
                    messages += [assistant(""), {"role": "user", "content": SAY_SOMETHING}]
                    continue
                self.emit({"text": "(the model returned an empty reply)"})
                return self.parts
            runs += 1
            messages += await self.run_calls(turn, classified)
            if runs >= self.max_steps:
                messages.append({"role": "user", "content": STEP_LIMIT})

    def emit_text(self, text: str) -> None:
        if text.strip():
            self.emit({"text": text})

    async def stream_turn(self, messages: list[dict[str, Any]], *, tools: bool) -> Turn:
        stream = await self.client.chat.completions.create(
            model=self.model,
            messages=cast("list[ChatCompletionMessageParam]", messages),
            stream=True,
            tools=[cast("ChatCompletionToolParam", RUN_PYTHON_TOOL)] if tools else omit,
        )
        turn = Turn()
        async for chunk in stream:
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            if delta.content:
                turn.content += delta.content
                self.hooks.text_delta(delta.content)
            if delta.tool_calls:
                turn.add_tool_deltas(delta.tool_calls)
        return turn

    async def run_calls(self, turn: Turn, classified: Classified) -> list[dict[str, Any]]:
        """Run each call; the messages that tell the model what happened."""
        native = classified.form == "tool_calls"
        if native:
            self.emit_text(turn.content)
        reports = [await self.run_one(call) for call in classified.calls]
        if not native:
            joined = "\n\n".join(f"{TOOL_NAME} result:\n{r}" for r in reports)
            return [assistant(turn.content), {"role": "user", "content": joined}]
        calls = [
            {
                "id": c["id"] or f"call_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for i, c in enumerate(turn.tool_calls)
        ]
        # Some servers (Ollama) refuse `content: null` on an assistant message.
        said = [{"role": "assistant", "content": turn.content, "tool_calls": calls}]
        return said + [
            {"role": "tool", "tool_call_id": call["id"], "content": report}
            for call, report in zip(calls, reports, strict=True)
        ]

    async def run_one(self, call: Call) -> str:
        if call.code is None:
            problem = f"The call was not run: {call.problem}."
            self.emit({"text": problem})
            return problem
        self.emit({"executable_code": {"language": "PYTHON", "code": call.code}})
        result = await self.sandbox.execute(call.code)
        report = result_text(result)
        self.emit({"code_execution_result": {"outcome": result.outcome, "output": report}})
        if self.hooks.result is not None:
            await self.hooks.result(result)
        return report


def assistant(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def part_json(part: Part) -> str:
    return json.dumps(part, ensure_ascii=False)
