"""Named sessions: `wasmbox mcp --session NAME` and `Sandbox.create(session=NAME)` keep the sandbox
(variables, files) across processes, in a browser profile and origin of their own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from tests.client.conftest import Loop
from tests.client.test_mcp import McpClient, texts
from wasmbox import Sandbox
from wasmbox.named import NamedSession, SessionInUse

pytestmark = pytest.mark.browser
CLI = "from wasm_runtime.cli import main; raise SystemExit(main())"


def mcp_server(data_dir: Path, name: str) -> StdioServerParameters:
    cli = f"from wasm_runtime.cli import main; raise SystemExit(main({mcp_args(data_dir, name)!r}))"
    return StdioServerParameters(command=sys.executable, args=["-c", cli])


def mcp_args(data_dir: Path, name: str) -> list[str]:
    return ["mcp", "--timeout", "300", "--session", name, "--data-dir", str(data_dir)]


def test_mcp_session_keeps_variables_and_files_across_restarts(
    loop: Loop, runtime_built: None, tmp_path: Path
) -> None:
    first = McpClient(loop, mcp_server(tmp_path, "notes"))
    first.open()
    try:
        started = first.call("run_python", code="answer = 41\nopen('kept.txt', 'w').write('hi')")
        assert not started.isError, texts(started)
        assert "[session 'notes' started]" in texts(started)
    finally:
        first.close()

    again = McpClient(loop, mcp_server(tmp_path, "notes"))
    again.open()
    try:
        result = again.call("run_python", code="answer + 1, open('kept.txt').read()")
        assert not result.isError, texts(result)
        assert "[session 'notes' resumed]" in texts(result)
        assert "(42, 'hi')" in texts(result)
        # reset forgets what the session saved, here and for the next server
        assert not again.call("reset").isError
        gone = again.call("run_python", code="'answer' in globals()")
        assert "False" in texts(gone)
    finally:
        again.close()

    third = McpClient(loop, mcp_server(tmp_path, "notes"))
    third.open()
    try:
        assert "False" in texts(third.call("run_python", code="'answer' in globals()"))
    finally:
        third.close()


def test_a_second_mcp_server_on_an_open_session_is_refused(tmp_path: Path) -> None:
    held = NamedSession.claim("busy", tmp_path)
    try:
        refused = subprocess.run(
            [sys.executable, "-c", CLI, *mcp_args(tmp_path, "busy")],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    finally:
        held.release()
    assert refused.returncode == 2
    assert "the session 'busy' is open in another wasmbox process" in refused.stderr


def double(x: float) -> float:
    """Twice x."""
    return 2 * x


def test_sandbox_session_resumes_in_a_new_browser(
    loop: Loop, runtime_built: None, tmp_path: Path
) -> None:
    sb = loop(Sandbox.create(timeout=300, session="py", data_dir=tmp_path))
    assert not sb.resumed
    port = sb.host.server.port
    try:
        loop(sb.execute("import math\nx = math.tau"))
        with pytest.raises(SessionInUse, match="open in another wasmbox process"):
            NamedSession.claim("py", tmp_path)
    finally:
        loop(sb.close())
    # Tools are never saved: the ones given now are the resumed session's.
    tools = {"double": double}
    again = loop(Sandbox.create(timeout=300, session="py", data_dir=tmp_path, tools=tools))
    try:
        assert again.resumed and again.id == sb.id
        assert again.host.server.port == port  # the same origin, so the same storage
        code = "from wasmbox import tools\nround(await tools.double(x=x), 4)"
        assert loop(again.execute(code)).text == "12.5664"
    finally:
        loop(again.close())


@pytest.mark.parametrize("name", ["", "../up", "a/b", ".hidden", "x" * 65, "sp ace"])
def test_bad_session_names_are_refused(name: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="a session name is"):
        NamedSession.claim(name, tmp_path)
    assert not (tmp_path / "sessions").exists() or not any((tmp_path / "sessions").iterdir())
