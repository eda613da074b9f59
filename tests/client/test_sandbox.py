"""The Python client's contract, through the real SDK in a headless Chromium."""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Callable

import pytest

from tests.client.conftest import Loop
from wasmbox import Host, Sandbox, SandboxError

pytestmark = pytest.mark.browser


def test_value_stdout_and_state_across_runs(loop: Loop, sandbox: Sandbox) -> None:
    first = loop(sandbox.execute("import pandas as pd\nrows = 3\nprint('hi')\npd.__version__"))
    assert first.outcome == "OUTCOME_OK", first.error
    assert first.text == "'2.2.3'" and first.stdout == "hi\n"
    assert loop(sandbox.execute("rows * 2")).text == "6"


def test_output_streams_while_running(loop: Loop, sandbox: Sandbox) -> None:
    """Each line arrives while the cell still runs: the cell waits 1.5 s between its two lines,
    and output kept until the run's end would arrive with no gap at all."""
    arrived: list[tuple[str, str, float]] = []

    def sink(name: str) -> Callable[[str], None]:
        return lambda text: arrived.append((name, text, time.monotonic()))

    code = (
        "import sys, asyncio\nprint('a', flush=True)\nawait asyncio.sleep(1.5)\n"
        "print('b', file=sys.stderr, flush=True)"
    )
    result = loop(sandbox.execute(code, on_stdout=sink("stdout"), on_stderr=sink("stderr")))

    def streamed(stream: str) -> tuple[str, float]:
        chunks = [(text, at) for name, text, at in arrived if name == stream]
        return "".join(text for text, _ in chunks), chunks[0][1]

    (out, out_at), (err, err_at) = streamed("stdout"), streamed("stderr")
    assert (out, err) == (result.stdout, result.stderr) == ("a\n", "b\n")
    assert err_at - out_at > 0.5, "the first line came only with the second"


def test_first_streaming_runs_at_once_each_get_their_own_output(
    loop: Loop, runtime_built: None
) -> None:
    async def scenario() -> list[tuple[str, str]]:
        async with await Host.start() as fresh:  # nothing has streamed on it yet
            sandboxes = [await Sandbox.create(host=fresh) for _ in range(2)]
            outs: list[list[str]] = [[], []]
            results = await asyncio.gather(
                *(
                    sb.execute(f"print('from {i}')", on_stdout=outs[i].append)
                    for i, sb in enumerate(sandboxes)
                )
            )
            return [("".join(out), r.stdout) for out, r in zip(outs, results, strict=True)]

    assert loop(scenario()) == [("from 0\n", "from 0\n"), ("from 1\n", "from 1\n")]


def test_error_is_a_result_with_the_users_traceback(loop: Loop, sandbox: Sandbox) -> None:
    result = loop(sandbox.execute("def f():\n    return 1 / 0\nf()"))
    assert result.outcome == "OUTCOME_FAILED"
    assert result.error is not None and result.error.name == "ZeroDivisionError"
    assert "line 2, in f" in result.error.traceback and "pyodide" not in result.error.traceback


def test_files_in_and_out(loop: Loop, sandbox: Sandbox) -> None:
    raw = bytes(range(256))
    loop(sandbox.write_file("in/raw.bin", raw))
    code = (
        "import pandas as pd\n"
        "df = pd.read_csv('data.csv')\n"
        "df.assign(c=df.a * 2).to_csv('out.csv', index=False)\n"
        "len(open('in/raw.bin', 'rb').read())"
    )
    result = loop(sandbox.execute(code, files={"data.csv": "a\n1\n2\n"}))
    assert result.text == "256", result.error
    assert [f.path for f in result.files] == ["out.csv"]
    assert loop(sandbox.read_file("out.csv")) == b"a,c\n1,2\n2,4\n"
    assert loop(sandbox.read_file("in/raw.bin")) == raw
    listed = {f.path: f.size for f in loop(sandbox.list_files())}
    assert listed["in/raw.bin"] == 256 and listed["data.csv"] == 6


def test_a_plot_comes_back_as_a_png(loop: Loop, sandbox: Sandbox) -> None:
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"
    result = loop(sandbox.execute(code))
    (image,) = result.images()
    assert base64.b64decode(image.data).startswith(b"\x89PNG\r\n\x1a\n")


def test_environment(loop: Loop, sandbox: Sandbox) -> None:
    env = loop(sandbox.environment())
    assert env.python.startswith("3.12")
    assert "numpy" in env.packages and env.limits["timeoutMs"] == 300_000
    assert env.mode == "interrupt" and env.mode_reason is None  # the host page is isolated


def test_network_is_blocked_and_audited(loop: Loop, sandbox: Sandbox) -> None:
    code = (
        "import urllib.request\n"
        "try:\n"
        "    urllib.request.urlopen('http://example.com', timeout=5).read()\n"
        "    print('reached')\n"
        "except Exception as exc:\n"
        "    print('blocked')\n"
    )
    result = loop(sandbox.execute(code))
    assert result.stdout == "blocked\n"
    assert any("example.com" in a.target for a in result.audit.network_attempts)


def test_bad_calls_raise_clear_errors(loop: Loop, sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="invalid file name"):
        loop(sandbox.write_file("../escape.txt", "x"))
    with pytest.raises(ValueError, match="timeout"):
        loop(sandbox.execute("1", timeout=0))
    with pytest.raises(TypeError, match="code must be a str"):
        loop(sandbox.execute(b"1"))  # type: ignore[arg-type]


def test_an_error_thrown_in_the_page_is_its_message_alone(loop: Loop, sandbox: Sandbox) -> None:
    # No driver prefix, call log or JS stack: the SDK's error, named, in one line.
    with pytest.raises(SandboxError) as raised:
        loop(sandbox.read_file("missing.txt"))
    assert str(raised.value) == 'SandboxError: no such file in the sandbox: "missing.txt"'


def test_deadline_keeps_state_and_the_sandbox_serves_on(loop: Loop, host: Host) -> None:
    sb = loop(Sandbox.create(timeout=300, host=host))
    try:
        loop(sb.execute("kept = 'yes'"))
        result = loop(sb.execute("while True: pass", timeout=1))
        assert result.outcome == "OUTCOME_DEADLINE_EXCEEDED"
        assert result.state_lost is False  # isolated page: the soft interrupt keeps the state
        assert loop(sb.execute("kept")).text == "'yes'"
    finally:
        loop(sb.close())


def test_a_closed_sandbox_refuses_calls(loop: Loop, host: Host) -> None:
    sb = loop(Sandbox.create(host=host))
    loop(sb.close())
    with pytest.raises(SandboxError, match="closed"):
        loop(sb.execute("1"))


def test_sandbox_without_host_owns_its_browser(loop: Loop, runtime_built: None) -> None:
    async def scenario() -> tuple[str | None, bool]:
        async with await Sandbox.create(timeout=30) as sb:
            result = await sb.execute("1 + 1")
        return result.text, sb.host.page.is_closed()

    text, page_closed = loop(scenario())
    assert text == "2" and page_closed


def test_a_persisted_session_resumes_with_its_variables(loop: Loop, host: Host) -> None:
    sb = loop(Sandbox.create(persist=True, host=host))
    loop(sb.execute("x = 41"))
    loop(sb.close())
    again = loop(Sandbox.resume(sb.id, host=host))
    assert loop(again.execute("x + 1")).text == "42"
    loop(again.close())
