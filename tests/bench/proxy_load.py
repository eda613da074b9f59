"""Proxy overhead under load: many concurrent streaming clients, through the proxy and directly.

`make bench-proxy` (or `python -m tests.bench.proxy_load --clients 500`). Loopback only, bounded
in time. The fake upstream (its own process) streams N tokens per request, each token being the
monotonic time it was sent, so every chunk's latency is measured at the client. The proxy runs in
its own process too. The same load is sent straight to the upstream for the baseline; "added" is
proxy minus direct, at the same percentile.

The clients speak raw HTTP/1.1 over asyncio streams: a heavier client would be the bottleneck
on a 2-core machine and hide the proxy's own cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.backend.redis_server import free_port

HOST = "127.0.0.1"
STAMPED = re.compile(rb'"content": "(\d+)"')
BODY = json.dumps(
    {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": "go"}]}
).encode()


@dataclass
class Run:
    ttfb_ms: list[float] = field(default_factory=list)
    chunk_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def one_stream(port: int, path: str, tokens: int, run: Run) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        request = (
            f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(BODY)}\r\nConnection: close\r\n\r\n"
        ).encode() + BODY
        sent = time.monotonic_ns()
        writer.write(request)
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            run.errors.append(status.decode(errors="replace").strip() or "no status")
            return
        pending, seen, first = b"", 0, True
        while chunk := await reader.read(65536):
            now = time.monotonic_ns()
            pending += chunk
            consumed = 0
            for match in STAMPED.finditer(pending):
                if first:
                    run.ttfb_ms.append((now - sent) / 1e6)
                    first = False
                run.chunk_ms.append((now - int(match[1])) / 1e6)
                consumed = match.end()
                seen += 1
            pending = pending[consumed:]  # keep a token cut between two reads
        if seen != tokens:
            run.errors.append(f"got {seen} of {tokens} tokens")
    except OSError as exc:
        run.errors.append(type(exc).__name__)
    finally:
        writer.close()


async def load(port: int, path: str, clients: int, tokens: int, timeout_s: float) -> Run:
    run = Run()
    started = time.monotonic()
    tasks = [asyncio.create_task(one_stream(port, path, tokens, run)) for _ in range(clients)]
    _done, pending = await asyncio.wait(tasks, timeout=timeout_s)
    for task in pending:
        task.cancel()
        run.errors.append("timed out")
    run.wall_s = time.monotonic() - started
    return run


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout_s: float = 20) -> None:
    import socket

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process exited with {process.returncode}")
        try:
            socket.create_connection((HOST, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


PROXY_CODE = (
    "import uvicorn; from backend.app import create_app; "
    "uvicorn.run(create_app(), host='127.0.0.1', port={port}, log_level='warning', "
    "backlog=4096, timeout_keep_alive=5)"
)


def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, *args], env=env)


def report(name: str, run: Run) -> None:
    print(
        f"  {name:7} ttfb p50 {percentile(run.ttfb_ms, 0.5):7.2f} ms  p99 "
        f"{percentile(run.ttfb_ms, 0.99):7.2f} ms | chunk p50 {percentile(run.chunk_ms, 0.5):7.2f}"
        f" ms  p99 {percentile(run.chunk_ms, 0.99):7.2f} ms | errors {len(run.errors)}"
        f" | wall {run.wall_s:5.1f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=5.0, help="between upstream tokens")
    parser.add_argument("--timeout", type=float, default=120.0, help="per phase, seconds")
    args = parser.parse_args()

    upstream_port, proxy_port = free_port(), free_port()
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-bench",
        "OPENAI_BASE_URL": f"http://{HOST}:{upstream_port}/v1",
        "WASMBOX_MODELS": "gpt-test",
        "WASMBOX_RATE_LIMIT": "1000000/minute",
        "WASMBOX_RATE_LIMIT_STORAGE": "memory://",
        "WASMBOX_MAX_STREAMS_PER_CLIENT": str(args.clients * 2),
        "WASMBOX_MAX_STREAMS_TOTAL": str(args.clients * 2),
    }
    upstream = start(
        [
            "-m",
            "tests.support.fake_openai",
            "--port",
            str(upstream_port),
            "--tokens",
            str(args.tokens),
            "--delay-ms",
            str(args.delay_ms),
        ]
    )
    proxy = start(["-c", PROXY_CODE.format(port=proxy_port)], env=env)
    try:
        wait_for_port(upstream_port, upstream)
        wait_for_port(proxy_port, proxy)
        print(
            f"{args.clients} concurrent streams x {args.tokens} tokens "
            f"({args.delay_ms:g} ms apart), {os.cpu_count()} CPUs"
        )
        # A short warm-up so neither side pays for first imports in the measurement.
        asyncio.run(load(proxy_port, "/api/chat/completions", 5, args.tokens, args.timeout))
        asyncio.run(load(upstream_port, "/v1/chat/completions", 5, args.tokens, args.timeout))
        direct = asyncio.run(
            load(upstream_port, "/v1/chat/completions", args.clients, args.tokens, args.timeout)
        )
        proxied = asyncio.run(
            load(proxy_port, "/api/chat/completions", args.clients, args.tokens, args.timeout)
        )
        report("direct", direct)
        report("proxy", proxied)
        for label, q in (("p50", 0.5), ("p99", 0.99)):
            ttfb = percentile(proxied.ttfb_ms, q) - percentile(direct.ttfb_ms, q)
            chunk = percentile(proxied.chunk_ms, q) - percentile(direct.chunk_ms, q)
            print(f"  added {label}: first byte {ttfb:+7.2f} ms, per chunk {chunk:+7.2f} ms")
        print(
            f"  peak RSS: proxy {peak_rss_mb(proxy.pid):.0f} MB, "
            f"upstream {peak_rss_mb(upstream.pid):.0f} MB"
        )
        for name, run in (("direct", direct), ("proxy", proxied)):
            if run.errors:
                print(f"  {name} errors (first 5): {run.errors[:5]}")
        return 1 if proxied.errors or direct.errors else 0
    finally:
        for process in (proxy, upstream):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    sys.exit(main())
