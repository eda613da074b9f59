"""Starts llama-cpp-python's server with every completion bounded.

Run by the llama virtualenv's python, not the project's: `python llama_launch.py CAP <server args>`.

Why: `chatml-function-calling` (0.3.36) generates a tool call's arguments, and its "message:"
replies, with `max_tokens=None`, whatever the request asked, so a small model that never closes
its JSON string writes until the context is full (minutes on 2 cores). Here any completion asked
for with no limit gets CAP tokens; one that asked for a limit keeps it.
"""

from __future__ import annotations

import importlib
import runpy
import sys
from typing import Any


def bound(cap: int) -> None:
    # The llama venv's package, absent from the project's venv (so mypy cannot see it).
    Llama: Any = importlib.import_module("llama_cpp").Llama
    unbounded = Llama.create_completion

    def create_completion(self: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) < 3 and (kwargs.get("max_tokens") is None or kwargs["max_tokens"] <= 0):
            kwargs["max_tokens"] = cap
        return unbounded(self, *args, **kwargs)

    Llama.create_completion = create_completion


if __name__ == "__main__":
    bound(int(sys.argv.pop(1)))
    sys.argv[0] = "llama_cpp.server"
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
