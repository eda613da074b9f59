"""The peer row of `make bench-agent`: smolagents' CodeAgent on the same tasks, model and server.

Run by tests/bench/agent.py with the smolagents virtualenv's Python (scripts/ensure-smolagents.sh),
so it imports nothing of this project. Reads one task as JSON on stdin
({"messages", "upload": [name, content] | null, "base", "model", "max_steps"}) and prints one JSON
line: {"answer", "steps", "plots", "errors", "seconds"}. Its executor is smolagents' own (native
Python in a temporary directory holding the task's file), at temperature 0 like the app's.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

import matplotlib

matplotlib.use("Agg")  # no display: a figure is drawn, never shown

from smolagents import CodeAgent, OpenAIServerModel


def main() -> int:
    task = json.load(sys.stdin)
    model = OpenAIServerModel(
        model_id=task["model"],
        api_base=task["base"],
        api_key="sk-local-not-a-secret",
        # llama-cpp-python's server wants string contents, not lists of parts.
        flatten_messages_as_text=True,
        temperature=0.0,
        max_tokens=1024,
    )
    agent = CodeAgent(
        tools=[],
        model=model,
        additional_authorized_imports=["*"],
        max_steps=task["max_steps"],
        verbosity_level=0,
    )
    started = time.monotonic()
    answers: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        if task["upload"]:
            name, content = task["upload"]
            with open(name, "w") as f:
                f.write(content)
        for n, message in enumerate(task["messages"]):
            try:
                answers.append(str(agent.run(message, reset=n == 0)))
            except Exception as exc:  # an agent that fails is a row, not a crash
                answers.append(f"(agent failed: {type(exc).__name__}: {exc})")
    steps = [s for s in agent.memory.steps if type(s).__name__ == "ActionStep"]
    code = "\n".join(getattr(s, "code_action", "") or "" for s in steps)
    errors = [str(s.error) for s in steps if getattr(s, "error", None)]
    out = {
        "answer": answers[-1] if answers else "",
        "steps": len(steps),
        "plots": sum(code.count(call) for call in ("hist(", "plot(", "savefig(")),
        "errors": errors,
        "seconds": time.monotonic() - started,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
