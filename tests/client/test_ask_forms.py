"""The forms in which models ask to run code, read as the SDK's agent reads them."""

from __future__ import annotations

import json

import pytest

from wasmbox.ask.forms import Call, classify_reply

CODE = "print(1 + 1)"
ARGS = json.dumps({"code": CODE})


@pytest.mark.parametrize(
    ("content", "tool_calls", "form", "calls"),
    [
        pytest.param("", [("run_python", ARGS)], "tool_calls", [Call(code=CODE)], id="native"),
        pytest.param("", [("run_python", ARGS + ARGS)], "tool_calls", [Call(code=CODE)],
                     id="native-sent-twice"),
        pytest.param("", [("run_python", "{oops")], "tool_calls",
                     [Call(problem="its arguments are not valid JSON")], id="native-malformed"),
        pytest.param("", [("shell", ARGS)], "tool_calls",
                     [Call(problem='there is no tool named "shell"')], id="native-unknown-tool"),
        pytest.param("", [("run_python", ARGS), ("run_python", json.dumps({"code": "2"}))],
                     "tool_calls", [Call(code=CODE), Call(code="2")], id="native-two-calls"),
        pytest.param(f'```json\n{{"name": "run_python", "arguments": {ARGS}}}\n```', [],
                     "fenced-json", [Call(code=CODE)], id="fenced-json"),
        pytest.param(f'{{"tool": "run_python", "parameters": {ARGS}}}', [], "fenced-json",
                     [Call(code=CODE)], id="whole-reply-json"),
        pytest.param(f'<tool_call>{{"name": "run_python", "arguments": {ARGS}}}</tool_call>', [],
                     "hermes", [Call(code=CODE)], id="hermes"),
        pytest.param(f'<tool_call>{{"name": "run_python", "arguments": {ARGS}}}', [], "hermes",
                     [Call(code=CODE)], id="hermes-cut-at-stop-token"),
        pytest.param("<tool_call>not json</tool_call>", [], "hermes",
                     [Call(problem="the text inside <tool_call> is not valid JSON")],
                     id="hermes-malformed"),
        pytest.param(f"functions.run_python:\n{ARGS}", [], "functions-prefix", [Call(code=CODE)],
                     id="functions-prefix-json"),
        pytest.param(f"functions.run_python:\n```python\n{CODE}\n```", [], "functions-prefix",
                     [Call(code=CODE)], id="functions-prefix-fenced-code"),
        pytest.param(f"Here is how:\n```python\n{CODE}\n```", [], "bare-python",
                     [Call(code=CODE + "\n")], id="shown-code"),
        pytest.param("The answer is 4.", [], "none", [], id="plain-answer"),
    ],
)  # fmt: skip
def test_reply_forms(
    content: str, tool_calls: list[tuple[str, str]], form: str, calls: list[Call]
) -> None:
    classified = classify_reply(content, tool_calls)
    assert classified.form == form
    assert classified.calls == calls
