"""A throwaway redis-server on a loopback port, for the shared rate-limit tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import redis

NOT_INSTALLED = (
    "redis-server is not installed and could not be installed "
    "(`make test` installs Debian's redis-server with apt-get when run as root)"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def redis_server(timeout_s: float = 10.0) -> Iterator[str]:
    """Start redis-server on 127.0.0.1 without persistence; yields its redis:// URL."""
    executable = shutil.which("redis-server")
    if executable is None:
        raise FileNotFoundError(NOT_INSTALLED)
    port = free_port()
    args = [
        executable,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
