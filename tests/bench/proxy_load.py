"""Proxy overhead under load: many concurrent streaming clients, through the proxy and directly.

`make bench-proxy` (or `python -m tests.bench.proxy_load --clients 500`). Loopback only, bounded
in time. The fake upstream (its own process) streams N tokens per request, each token being the
monotonic time it was sent, so every chunk's latency is measured at the client. The proxy runs in
its own process too. The same load is sent straight to the upstream for the baseline; "added" is
proxy minus direct, at the same percentile.

The clients speak raw HTTP/1.1 over asyncio streams on uvloop: a heavier client would be the
bottleneck on a 2-core machine and hide the proxy's own cost. All three (clients, upstream, proxy)
share the machine's cores, so each phase also reports the CPU seconds each process used: the
direct phase has two processes competing, the proxied one three.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvloop

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


async def one_stream(
    port: int, path: str, tokens: int, run: Run, *, first_only: bool = False
) -> None:
    """One streaming request; with `first_only`, hang up once the first token is in."""
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
            if first_only and seen:
                return
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


async def alone(port: int, path: str, count: int, tokens: int) -> Run:
    """One request at a time, each dropped after its first token: the latency a request meets
    when it has the machine to itself, with no queue in front of it."""
    run = Run()
    started = time.monotonic()
    for _ in range(count):
        await one_stream(port, path, tokens, run, first_only=True)
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


def family(pid: int) -> list[int]:
    """The process and its children (uvicorn's worker processes)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [pid, *(int(child) for child in children.read_text().split())]
    except OSError:
        return [pid]


def peak_rss_mb(pid: int) -> float:
    """The largest peak RSS among the process and its workers."""
    peaks = [0.0]
    for member in family(pid):
        for line in Path(f"/proc/{member}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of the process and its live workers."""
    ticks = 0
    for member in family(pid):
        fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


PROXY_CODE = (
    "from backend.commands import run_server; "
    "run_server('127.0.0.1', {port}, workers={workers}, backlog=4096, timeout_keep_alive=5)"
)


def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, *args], env=env)


def measured(
    phase: Callable[[], Coroutine[Any, Any, Run]], processes: dict[str, int]
) -> tuple[Run, dict[str, float]]:
    """Run one load phase; also return the CPU seconds each process spent during it."""
    before = {name: cpu_s(pid) for name, pid in processes.items()} | {"clients": own_cpu_s()}
    run = uvloop.run(phase())
    after = {name: cpu_s(pid) for name, pid in processes.items()} | {"clients": own_cpu_s()}
    return run, {name: after[name] - before[name] for name in before}


def report(name: str, run: Run, cpu: dict[str, float]) -> None:
    print(
        f"  {name:7} ttfb p50 {percentile(run.ttfb_ms, 0.5):7.2f} ms  p99 "
        f"{percentile(run.ttfb_ms, 0.99):7.2f} ms | chunk p50 {percentile(run.chunk_ms, 0.5):7.2f}"
        f" ms  p99 {percentile(run.chunk_ms, 0.99):7.2f} ms | errors {len(run.errors)}"
        f" | wall {run.wall_s:5.1f} s"
    )
    print("          CPU s: " + ", ".join(f"{who} {seconds:.1f}" for who, seconds in cpu.items()))


def added_p50(direct: Run, proxied: Run) -> float:
    return percentile(proxied.ttfb_ms, 0.5) - percentile(direct.ttfb_ms, 0.5)


def verdict(
    direct: Run,
    proxied: Run,
    direct_cpu: dict[str, float],
    proxied_cpu: dict[str, float],
    alone_added_ms: float,
) -> list[str]:
    """The issue's targets, each with the figure it was judged on.

    "Overhead within 2x of the upstream talking to the clients directly" is read two ways, both
    shown: the proxied run's wall time against the direct run's, and the CPU the proxy spends
    relaying against the CPU the upstream spends serving the same clients itself. The added first
    byte is shown for the 500-stream burst (mostly queueing: three processes share two cores)
    and for a request that has the proxy to itself (what the proxy itself adds).
    """
    wall_ratio = proxied.wall_s / direct.wall_s if direct.wall_s else float("nan")
    cpu_ratio = proxied_cpu["proxy"] / max(direct_cpu["upstream"], 1e-9)
    burst = added_p50(direct, proxied)
    checks = [
        (not proxied.errors, f"zero errors ({len(proxied.errors)})"),
        (burst < 5, f"p50 added first byte < 5 ms, 500-stream burst ({burst:+.2f} ms)"),
        (
            alone_added_ms < 5,
            f"p50 added first byte < 5 ms, one request ({alone_added_ms:+.2f} ms)",
        ),
        (wall_ratio <= 2, f"wall within 2x of direct ({wall_ratio:.2f}x)"),
        (cpu_ratio <= 2, f"proxy CPU within 2x of the upstream's direct CPU ({cpu_ratio:.2f}x)"),
    ]
    return [f"  {'PASS' if ok else 'MISS'}  {text}" for ok, text in checks]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=5.0, help="between upstream tokens")
    parser.add_argument("--timeout", type=float, default=120.0, help="per phase, seconds")
    parser.add_argument("--workers", type=int, default=1, help="proxy worker processes")
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
    proxy = start(["-c", PROXY_CODE.format(port=proxy_port, workers=args.workers)], env=env)
    try:
        wait_for_port(upstream_port, upstream)
        wait_for_port(proxy_port, proxy)
        print(
            f"{args.clients} concurrent streams x {args.tokens} tokens "
            f"({args.delay_ms:g} ms apart), {os.cpu_count()} CPUs, {args.workers} proxy worker(s)"
        )
        # A short warm-up (enough streams to reach every worker) so neither side pays for
        # first imports in the measurement.
        warm = 5 * args.workers
        uvloop.run(load(proxy_port, "/api/chat/completions", warm, args.tokens, args.timeout))
        uvloop.run(load(upstream_port, "/v1/chat/completions", warm, args.tokens, args.timeout))
        processes = {"upstream": upstream.pid, "proxy": proxy.pid}
        direct, direct_cpu = measured(
            lambda: load(
                upstream_port, "/v1/chat/completions", args.clients, args.tokens, args.timeout
            ),
            processes,
        )
        proxied, proxied_cpu = measured(
            lambda: load(
                proxy_port, "/api/chat/completions", args.clients, args.tokens, args.timeout
            ),
            processes,
        )
        alone_direct = uvloop.run(alone(upstream_port, "/v1/chat/completions", 30, args.tokens))
        alone_proxied = uvloop.run(alone(proxy_port, "/api/chat/completions", 30, args.tokens))
        report("direct", direct, direct_cpu)
        report("proxy", proxied, proxied_cpu)
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
        alone_added = added_p50(alone_direct, alone_proxied)
        print(
            f"  one request at a time: first byte p50 direct "
            f"{percentile(alone_direct.ttfb_ms, 0.5):.2f} ms, proxy "
            f"{percentile(alone_proxied.ttfb_ms, 0.5):.2f} ms ({alone_added:+.2f} ms)"
        )
        print("\n".join(verdict(direct, proxied, direct_cpu, proxied_cpu, alone_added)))
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
