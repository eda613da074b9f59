"""`wasmbox ask` against a real model: SmolLM2-135M behind llama-cpp-python's server, as a user
would point it at a local server. What the tiny model answers is not asserted, only how the turn
goes: it ends in text, at the step limit or with a shown error; a call it makes runs in the
sandbox; --json prints parts that parse."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.realmodel, pytest.mark.timeout(2400)]

CLI = "import sys; from wasm_runtime.cli import main; sys.exit(main())"


def test_ask_ends_its_turn_and_runs_what_the_model_calls(
    smollm2: str, runtime_built: None, tmp_path: Path
) -> None:
    env = {**os.environ, "OPENAI_BASE_URL": smollm2, "WASMBOX_MODELS": "smollm2"}
    env.pop("OPENAI_API_KEY", None)  # a local server needs none
    question = "What is the sum of all prime numbers below 100? Use Python."
    done = subprocess.run(
        [sys.executable, "-c", CLI, "ask", question, "--json", "--max-steps", "2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=2000,
    )
    parts = [json.loads(line) for line in done.stdout.splitlines()]
    # This server streams nothing for a request with tools: the Agent's fallback, said on stderr.
    assert "without streaming" in done.stderr, done.stderr
    for i, part in enumerate(parts):
        assert len(part) == 1 and next(iter(part)) in (
            "text",
            "executable_code",
            "code_execution_result",
        )
        if "executable_code" in part:  # it ran: its result follows, with a sandbox outcome
            result = parts[i + 1]["code_execution_result"]
            assert result["outcome"].startswith("OUTCOME_")
    if done.returncode == 1:
        assert "The model request failed:" in done.stderr, done.stderr
    else:
        assert done.returncode == 0, done.stderr
        ended_in_text = bool(parts) and bool(parts[-1].get("text", "").strip())
        assert ended_in_text or "step limit" in done.stderr, (done.stdout, done.stderr)
