"""`make bench-anywhere`: the sandbox from Python and over MCP, as a caller times it.

- Python client: cold start (a new process's `Sandbox.create` + the first `1+1`: server, browser,
  page, runtime boot) and the warm `1+1` round trip.
- MCP: `wasmbox mcp` over stdio, from spawn to the first `run_python` result, and a warm one.
- mcp-run-python (PyPI), on the same machine, when it and what it needs install from the registries.

Targets: cold ≤ 3 s, warm ≤ 10 ms.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.bench.mcp_run_python import measure_mcp_run_python
from tests.bench.stats import summary

COLD_RUNS = 3
WARM_RUNS = 50
CLIENT_COLD = """
import asyncio, sys, time
started = time.perf_counter()
import wasmbox

async def main():
    async with await wasmbox.Sandbox.create() as sb:
        result = await sb.execute("1+1")
        assert result.text == "2", result
        print(time.perf_counter() - started)

asyncio.run(main())
"""
# The same with a named session: its browser profile (the page's runtime cache, the saved sandbox)
# is kept, so after the first start this is a returning process.
CLIENT_COLD_SESSION = CLIENT_COLD.replace(
    "wasmbox.Sandbox.create()",
    "wasmbox.Sandbox.create(session='bench', data_dir=__import__('pathlib').Path(sys.argv[1]))",
)
WASMBOX_MCP = StdioServerParameters(
    command=sys.executable, args=["-c", "from wasm_runtime.cli import main; main(['mcp'])"]
)


def client_cold(script: str = CLIENT_COLD, *args: str) -> list[float]:
    """Milliseconds from a fresh interpreter to the first result (imports included)."""
    samples = []
    for _ in range(COLD_RUNS):
        done = subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        samples.append(float(done.stdout.strip()) * 1000)
    return samples


# The SDK's own round trip in the same page, for what the client adds on top of it.
IN_PAGE = """async ([id, runs]) => {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await window.wasmboxHost.execute(id, "1+1", {});
    samples.push(performance.now() - started);
  }
  return samples;
}"""


async def client_warm() -> dict[str, list[float]]:
    """The client's warm 1+1 round trips and the SDK's alone in the same page (ms): the first ones
    after the first result, and again once the page has run 100 more (by then V8 has tiered the
    worker's WebAssembly up: a fresh page's first few dozen runs are slower)."""
    import wasmbox

    async def client_runs(sb: wasmbox.Sandbox) -> list[float]:
        samples = []
        for _ in range(WARM_RUNS):
            started = time.perf_counter()
            result = await sb.execute("1+1")
            samples.append((time.perf_counter() - started) * 1000)
            assert result.text == "2"
        return samples

    async with await wasmbox.Sandbox.create() as sb:
        await sb.execute("1+1")
        figures = {"client": await client_runs(sb)}
        figures["in_page"] = await sb.host.page.evaluate(IN_PAGE, [sb.id, WARM_RUNS])
        await sb.host.page.evaluate(IN_PAGE, [sb.id, 100])
        figures["client_later"] = await client_runs(sb)
        figures["in_page_later"] = await sb.host.page.evaluate(IN_PAGE, [sb.id, WARM_RUNS])
    return figures


async def mcp_timings(
    server: StdioServerParameters, code: str = "1+1"
) -> tuple[float, list[float]]:
    """(ms from spawn to the first run_python result, warm run_python round trips in ms)."""
    started = time.perf_counter()
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        first = await session.call_tool("run_python", {"code": code})
        cold = (time.perf_counter() - started) * 1000
        if first.isError:
            raise RuntimeError(f"the first run failed: {first.content}")
        warm = []
        for _ in range(WARM_RUNS):
            t = time.perf_counter()
            await session.call_tool("run_python", {"code": code})
            warm.append((time.perf_counter() - t) * 1000)
    return cold, warm


def main() -> None:
    print("wasmbox from anywhere (targets: cold ≤ 3000 ms, warm ≤ 10 ms)")
    print(f"  Python client cold start → first result  {summary(client_cold())}")
    with tempfile.TemporaryDirectory() as data:
        named = client_cold(CLIENT_COLD_SESSION, data)
    print(f"  named session: first start               {summary(named[:1])}")
    print(f"  named session: restarts → first result   {summary(named[1:])}")
    client = asyncio.run(client_warm())
    print(f"  Python client warm 1+1 round trip        {summary(client['client'])}")
    print(f"    the SDK alone in the same page         {summary(client['in_page'])}")
    print(f"  the same after 200 runs in the page      {summary(client['client_later'])}")
    print(f"    the SDK alone in the same page         {summary(client['in_page_later'])}")
    cold, warm = asyncio.run(mcp_timings(WASMBOX_MCP))
    print(f"  MCP spawn → first run_python             {summary([cold])}")
    print(f"  MCP warm run_python 1+1                  {summary(warm)}")
    measure_mcp_run_python()


if __name__ == "__main__":
    main()
