"""llama-cpp-python's OpenAI-compatible server on loopback, serving one verified local model.

The server runs in its own virtualenv (scripts/ensure-llama.sh makes it) as a child process that
is stopped when the block ends. `chatml-function-calling` is the chat format that answers
`tools` requests with `tool_calls`, the one the product was first tried with; `chat_format=None`
renders the model's own template (Qwen2.5's writes calls as `<tool_call>` text).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.support.models import Model, ensure
from tests.support.servers import free_port

VERSION = "0.3.36"
VENV = Path.home() / ".cache" / "wasmbox" / "llama" / f"venv-{VERSION}"
CHAT_FORMAT = "chatml-function-calling"
START_TIMEOUT_S = 180
LAUNCH = Path(__file__).with_name("llama_launch.py")


def source(model: Model, chat_format: str | None = CHAT_FORMAT) -> str:
    """How recorded outputs name where they came from."""
    return f"llama-cpp-python {VERSION} {chat_format or 'gguf chat template'}, {model.name}"


@contextmanager
def llama_server(
    model: Model,
    *,
    alias: str,
    n_ctx: int = 4096,
    threads: int = 2,
    log: Path | None = None,
    max_tokens: int = 1024,
    chat_format: str | None = CHAT_FORMAT,
    nice: int = 0,
) -> Iterator[str]:
    """Serve `model` as `alias`; yield the base URL up to `/v1`. A completion the chat format
    starts with no limit (a tool call's arguments) stops at `max_tokens` (see llama_launch.py).
    `chat_format=None` uses the chat template the GGUF file carries (the server's default).
    `nice` is the server's scheduling niceness (below 0 needs root: a shared, loaded machine)."""
    python = VENV / "bin" / "python"
    if not python.is_file():
        raise RuntimeError(f"{python} is missing: run scripts/ensure-llama.sh (make test does)")
    port = free_port()
    cmd = [str(python), str(LAUNCH), str(max_tokens), "--model", str(ensure(model))]
    cmd += ["--model_alias", alias, "--n_ctx", str(n_ctx)]
    cmd += ["--chat_format", chat_format] if chat_format else []
    cmd += ["--n_threads", str(threads), "--host", "127.0.0.1", "--port", str(port)]
    out = log.open("ab") if log else subprocess.DEVNULL
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        cmd,
        stdout=out,
        stderr=subprocess.STDOUT,
        env=env,
        # In the child before exec, so every thread llama.cpp starts inherits it.
        preexec_fn=(lambda: os.setpriority(os.PRIO_PROCESS, 0, nice)) if nice else None,
        # Its own session: with autogroup scheduling, niceness only weighs inside a session.
        start_new_session=bool(nice),
    )
    if nice:
        with contextlib.suppress(OSError):  # kernels without autogroup scheduling
            Path(f"/proc/{process.pid}/autogroup").write_text(str(nice))
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited with {process.returncode}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the llama.cpp server did not start in time")
            time.sleep(0.5)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if not isinstance(out, int):
            out.close()
