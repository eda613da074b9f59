"""The peer, mcp-run-python (PyPI; Pyodide under Deno), timed like `wasmbox mcp` when it can run.

Point WASMBOX_BENCH_MCP_RUN_PYTHON at its `mcp-run-python` executable (with `deno` on PATH: the npm
package `deno` ships one). It could not run on this project's machines when last tried
(mcp-run-python 0.0.22, deno 2.9.6 from npm): its server imports `@std/cli` from jsr.io and Pyodide
loads packages from the jsDelivr CDN, and neither is reachable here.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.bench.stats import summary

WARM_RUNS = 20
WHY_NOT = (
    "not measured: it needs Deno (the npm package `deno` provides it), but its server imports "
    "@std/cli from jsr.io and Pyodide fetches its packages from the jsDelivr CDN, neither of which "
    "this machine reaches. Set WASMBOX_BENCH_MCP_RUN_PYTHON to its executable to measure it."
)


async def timings(server: StdioServerParameters) -> tuple[float, list[float]]:
    started = time.perf_counter()
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool("run_python_code", {"python_code": "1+1"})
        cold = (time.perf_counter() - started) * 1000
        if first.isError:
            raise RuntimeError(str(first.content)[:300])
        warm = []
        for _ in range(WARM_RUNS):
            t = time.perf_counter()
            await session.call_tool("run_python_code", {"python_code": "1+1"})
            warm.append((time.perf_counter() - t) * 1000)
    return cold, warm


def measure_mcp_run_python() -> None:
    executable = os.environ.get("WASMBOX_BENCH_MCP_RUN_PYTHON") or shutil.which("mcp-run-python")
    if not executable or not shutil.which("deno"):
        print(f"  mcp-run-python {WHY_NOT}")
        return
    server = StdioServerParameters(command=executable, args=["stdio"], env=dict(os.environ))
    try:
        cold, warm = asyncio.run(asyncio.wait_for(timings(server), timeout=300))
    except Exception as exc:  # its failure is a finding to print, not a crash of our benchmark
        print(f"  mcp-run-python failed to run here: {type(exc).__name__}: {str(exc)[:300]}")
        return
    print(f"  mcp-run-python spawn → first run         {summary([cold])}")
    print(f"  mcp-run-python warm 1+1 (fresh globals)  {summary(warm)}")
