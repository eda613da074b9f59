"""wasmbox as the code-execution tool of an OpenAI Agents SDK agent (`pip install openai-agents`).

    OPENAI_API_KEY=... python examples/openai_agents_tool.py "Sum of all primes below 100?"

Any OpenAI-compatible server works: set OPENAI_BASE_URL (and WASMBOX_MODELS for its model name).
"""

from __future__ import annotations

import asyncio
import os
import sys

from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from agents.tool import FunctionTool
from openai import AsyncOpenAI

import wasmbox


def run_python_tool(sandbox: wasmbox.Sandbox) -> FunctionTool:
    @function_tool
    async def run_python(code: str) -> str:
        """Run Python in a sandbox (numpy, pandas, matplotlib; no network); state persists."""
        return wasmbox.result_text(await sandbox.execute(code))

    return run_python


async def main(question: str) -> str:
    set_tracing_disabled(True)  # traces would go to OpenAI's servers
    model = OpenAIChatCompletionsModel(
        model=os.environ.get("WASMBOX_MODELS", "gpt-4o-mini").split(",")[0],
        openai_client=AsyncOpenAI(api_key=os.environ.get("OPENAI_API_KEY", "unused")),
    )
    async with await wasmbox.Sandbox.create(timeout=60) as sandbox:
        agent = Agent(
            name="analyst",
            instructions="Use run_python for any computation; answer from its real output.",
            tools=[run_python_tool(sandbox)],
            model=model,
        )
        result = await Runner.run(agent, question)
    return str(result.final_output)


if __name__ == "__main__":
    print(asyncio.run(main(" ".join(sys.argv[1:]) or "What is the sum of all primes below 100?")))
