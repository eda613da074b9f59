"""examples/openai_agents_tool.py: an OpenAI Agents SDK agent whose code runs in wasmbox, against
the fake OpenAI-compatible server (the answer quotes the sandbox's real output)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.client.conftest import Loop
from tests.client.test_ask import PRIMES
from tests.support.fake_openai import FakeOpenAI, Reply, completion_reply, json_reply

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "openai_agents_tool.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openai_agents_tool", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tool_call_reply(code: str) -> Reply:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "run_python", "arguments": json.dumps({"code": code})},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return json_reply(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-test",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


def quote_tool_output(request: Any) -> Reply:
    last = request["messages"][-1]
    assert last["role"] == "tool"
    stdout = last["content"].split("stdout:\n", 1)[1].split("\n", 1)[0]
    return completion_reply(f"The sum is {stdout}.")


def test_the_agent_answers_from_the_sandbox(
    loop: Loop, runtime_built: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = load_example()
    with FakeOpenAI(default=quote_tool_output) as fake:
        fake.script(tool_call_reply(PRIMES))
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("WASMBOX_MODELS", "gpt-test")
        answer = loop(example.main("What is the sum of all primes below 100?"))
    assert answer == "The sum is 1060."
    assert fake.received[0].json["tools"][0]["function"]["name"] == "run_python"
