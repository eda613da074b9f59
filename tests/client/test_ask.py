"""`wasmbox ask` as a user runs it, against the fake OpenAI-compatible server on loopback.

The fake "model" scripts its code; its final answer quotes what the sandbox printed, so the figures
checked here come from the real run. The loop is the SDK's Agent in the client's page; these tests
check what crosses between it and the terminal: requests, events, the exit status, Ctrl+C.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pandas as pd
import pytest

from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    completion_reply,
    empty_stream_reply,
    reported_stdout,
    stream_reply,
    tool_call_completion_reply,
    tool_call_stream_reply,
)

# Deadlines and graces in wall-clock time: run alone, after the parallel pass (Makefile).
pytestmark = [pytest.mark.browser, pytest.mark.timing]

PRIMES = (
    "primes = [n for n in range(2, 100) if all(n % d for d in range(2, int(n ** 0.5) + 1))]\n"
    "print(sum(primes))"
)


CLI = "import sys; from wasm_runtime.cli import main; sys.exit(main())"


def told_stdout(request: Any) -> str:
    """The stdout of the run the last message reports (a `tool` message, or text calls' results)."""
    return reported_stdout(request["messages"][-1]["content"]) or "?"


def echo_tool_output(request: Any) -> Reply:
    """The model's answer after a run: it quotes the run's stdout."""
    answer = ["The answer is ", told_stdout(request), "."]
    return stream_reply(answer) if request["stream"] else completion_reply("".join(answer))


def ask_env(fake: FakeOpenAI) -> dict[str, str]:
    return {
        **os.environ,
        "OPENAI_BASE_URL": fake.base_url,
        "OPENAI_API_KEY": "sk-test",
        "WASMBOX_MODELS": "gpt-test",
    }


def wasmbox_ask(fake: FakeOpenAI, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # A generous deadline per run: a busy machine must not fail these tests.
        [sys.executable, "-c", CLI, "ask", "--timeout", "300", *args],
        cwd=cwd,
        env=ask_env(fake),
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
    said, told = fake.received[1].json["messages"][-2:]
    # The Agent's own call id, not the server's `call_fake` (servers reuse theirs across turns).
    assert said["tool_calls"][0]["id"] == told["tool_call_id"] == "call00001"
    assert told["role"] == "tool" and json.loads(told["content"])["outcome"] == "OK"


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
    # The kernel's preview of the uploaded file (docs/agent.md): its name, columns and dtypes.
    assert '- "sales.csv" (' in system and "a preview, not the whole data" in system


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
    # The transcript keeps what the model wrote, the call's text included, as the app shows it.
    assert parts[0]["text"].startswith("Let me plot it.\n<tool_call>")
    assert parts[1] == {"executable_code": {"language": "PYTHON", "code": code}}
    assert parts[-1] == {"text": "The answer is plotted."}, done.stdout
    assert (tmp_path / "wasmbox-out" / "image-1.png").read_bytes().startswith(b"\x89PNG")
    told = fake.received[1].json["messages"][-1]
    assert told["role"] == "user" and told["content"].startswith("Result of run_python:")


def test_an_empty_stream_is_asked_again_without_streaming(
    tmp_path: Path, runtime_built: None
) -> None:
    """llama-cpp-python's answer to a streamed request with tools: the SDK's fallback, here too."""
    with FakeOpenAI(default=echo_tool_output) as fake:
        fake.script(empty_stream_reply(), tool_call_completion_reply(PRIMES))
        done = wasmbox_ask(fake, tmp_path, "What is the sum of all primes below 100?")
    assert done.returncode == 0, done.stderr
    assert "without streaming" in done.stderr
    assert "The answer is 1060." in done.stdout
    assert [r.json["stream"] for r in fake.received] == [True, False, False]


def test_an_empty_reply_is_never_silent(tmp_path: Path, runtime_built: None) -> None:
    with FakeOpenAI() as fake:
        fake.script(stream_reply([]), completion_reply(""))
        done = wasmbox_ask(fake, tmp_path, "Anything?", "--json")
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""  # no part: nothing was said
    assert "The model request failed: the model's reply was empty" in done.stderr
    assert "The model answered with nothing" in done.stderr  # what to try


def default_ctrl_c() -> None:
    """In the child: Ctrl+C as a terminal gives it. A job a shell started in the background (a
    CI runner's, `cmd &`) inherits SIGINT ignored, and Python then never raises
    KeyboardInterrupt, so the test would measure its launcher, not `wasmbox ask`."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_ask(fake: FakeOpenAI, cwd: Path, *args: str) -> subprocess.Popen[str]:
    """`wasmbox ask` in a session of its own, as a terminal runs it: Ctrl+C reaches its group."""
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "ask", "--timeout", "300", *args],
        cwd=cwd,
        env=ask_env(fake),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=default_ctrl_c,
    )


def read_until(stream: IO[str], wanted: str, timeout_s: float = 300) -> str:
    """What `stream` printed up to and including the first line holding `wanted`."""
    seen = ""
    deadline = time.monotonic() + timeout_s
    while wanted not in seen:
        line = stream.readline()
        assert line and time.monotonic() < deadline, f"{wanted!r} never came: {seen!r}"
        seen += line
    return seen


def ctrl_c(process: subprocess.Popen[str]) -> tuple[str, str]:
    os.killpg(process.pid, signal.SIGINT)
    try:
        # Well inside the run's 300 s deadline, so only Ctrl-C can end it this soon; generous,
        # because a starved machine's browser takes long to close.
        return process.communicate(timeout=150)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def test_text_streams_and_ctrl_c_closes_the_model_request(
    tmp_path: Path, runtime_built: None
) -> None:
    lines = [f"line {n}\n" for n in range(600)]
    with FakeOpenAI() as fake:
        fake.script(stream_reply(lines, chunk_delay_s=0.1))
        process = start_ask(fake, tmp_path, "Count slowly.")
        assert process.stdout is not None
        shown = read_until(process.stdout, "line 2")  # printed while the model still writes
        out, err = ctrl_c(process)
        assert fake.disconnected.wait(10)  # the stream was closed, not left to run
    assert shown.startswith("line 0\nline 1\n")
    assert "line 599" not in out
    assert process.returncode == 130 and "stopped" in err


def test_ctrl_c_interrupts_a_running_cell(tmp_path: Path, runtime_built: None) -> None:
    forever = "import time\nprint('started', flush=True)\nwhile True:\n    time.sleep(0.05)"
    with FakeOpenAI() as fake:
        fake.script(tool_call_stream_reply(forever))
        process = start_ask(fake, tmp_path, "Wait forever.")
        assert process.stdout is not None
        read_until(process.stdout, "started")  # the run's output, live
        _out, err = ctrl_c(process)  # long before the run's 300 s deadline
    assert process.returncode == 130 and "stopped" in err
    assert len(fake.received) == 1  # no model request after the stop


def test_no_model_configured_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    done = subprocess.run(
        [sys.executable, "-c", CLI, "ask", "hi"], cwd=tmp_path, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "OPENAI_API_KEY" in done.stderr
