"""`wasmbox ask` as a user runs it, against the fake OpenAI-compatible server on loopback.

The fake "model" scripts its code; its final answer quotes what the sandbox printed, so the figures
checked here come from the real run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    stream_reply,
    tool_call_stream_reply,
)

pytestmark = pytest.mark.browser

PRIMES = (
    "primes = [n for n in range(2, 100) if all(n % d for d in range(2, int(n ** 0.5) + 1))]\n"
    "print(sum(primes))"
)


CLI = "import sys; from backend.cli import main; sys.exit(main())"


def echo_tool_output(request: Any) -> Reply:
    """The model's answer after a run: it quotes the run's stdout."""
    last = request["messages"][-1]["content"]
    stdout = last.split("stdout:\n", 1)[1].split("\n", 1)[0] if "stdout:\n" in last else "?"
    return stream_reply(["The answer is ", stdout, "."])


def wasmbox_ask(fake: FakeOpenAI, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": "sk-test",
        "WASMBOX_MODELS": "gpt-test",
    }
    return subprocess.run(
        # A generous deadline per run: a busy machine must not fail these tests.
        [sys.executable, "-c", CLI, "ask", "--timeout", "300", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_sum_of_primes_below_100(tmp_path: Path, runtime_built: None) -> None:
    with FakeOpenAI(default=echo_tool_output) as fake:
        fake.script(tool_call_stream_reply(PRIMES))
        done = wasmbox_ask(fake, tmp_path, "What is the sum of all primes below 100?")
    assert done.returncode == 0, done.stderr
    assert "1060" in done.stdout and "The answer is 1060." in done.stdout
    first = fake.received[0].json
    assert first["model"] == "gpt-test" and first["stream"] is True
    assert first["tools"][0]["function"]["name"] == "run_python"
    tool_message = fake.received[1].json["messages"][-1]
    assert tool_message["role"] == "tool" and "outcome: OUTCOME_OK" in tool_message["content"]


def test_csv_top5_matches_pandas_and_parts_as_json(tmp_path: Path, runtime_built: None) -> None:
    rows = [f"item{i},{(i * 37) % 101}" for i in range(40)]
    (tmp_path / "sales.csv").write_text("name,amount\n" + "\n".join(rows) + "\n")
    expected = pd.read_csv(tmp_path / "sales.csv").nlargest(5, "amount")["name"].tolist()
    code = (
        "import pandas as pd\n"
        "df = pd.read_csv('sales.csv')\n"
        "top = df.nlargest(5, 'amount')\n"
        "top.to_csv('top5.csv', index=False)\n"
        "print(','.join(top['name']))"
    )
    with FakeOpenAI(default=echo_tool_output) as fake:
        fake.script(tool_call_stream_reply(code))
        done = wasmbox_ask(
            fake, tmp_path, "Top 5 by amount?", "--file", str(tmp_path / "sales.csv"), "--json"
        )
    assert done.returncode == 0, done.stderr
    parts = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [next(iter(p)) for p in parts]
    assert kinds == ["executable_code", "code_execution_result", "text"]
    assert parts[0]["executable_code"] == {"language": "PYTHON", "code": code}
    result = parts[1]["code_execution_result"]
    assert result["outcome"] == "OUTCOME_OK" and ",".join(expected) in result["output"]
    assert parts[2]["text"] == f"The answer is {','.join(expected)}."
    saved = pd.read_csv(tmp_path / "wasmbox-out" / "top5.csv")
    assert saved["name"].tolist() == expected
    system = fake.received[0].json["messages"][0]["content"]
    assert "- sales.csv" in system


def test_a_call_written_as_text_runs_and_the_plot_is_saved(
    tmp_path: Path, runtime_built: None
) -> None:
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\nprint('plotted')"
    call = json.dumps({"name": "run_python", "arguments": {"code": code}})
    with FakeOpenAI(default=echo_tool_output) as fake:
        fake.script(stream_reply(["Let me plot it.\n<tool_call>", call, "</tool_call>"]))
        done = wasmbox_ask(fake, tmp_path, "Plot 1, 2, 3", "--json")
    assert done.returncode == 0, done.stderr
    parts = [json.loads(line) for line in done.stdout.splitlines()]
    assert parts[0] == {"executable_code": {"language": "PYTHON", "code": code}}
    assert parts[-1] == {"text": "The answer is plotted."}, done.stdout
    assert (tmp_path / "wasmbox-out" / "image-1.png").read_bytes().startswith(b"\x89PNG")
    told = fake.received[1].json["messages"][-1]
    assert told["role"] == "user" and told["content"].startswith("run_python result:")


def test_an_empty_reply_is_never_silent(tmp_path: Path, runtime_built: None) -> None:
    with FakeOpenAI() as fake:
        fake.script(stream_reply([]), stream_reply([]))
        done = wasmbox_ask(fake, tmp_path, "Anything?", "--json")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"text": "(the model returned an empty reply)"}
    ]
    assert "empty" in fake.received[1].json["messages"][-1]["content"]


def test_no_model_configured_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, "-c", CLI, "ask", "hi"], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "OPENAI_API_KEY" in done.stderr
