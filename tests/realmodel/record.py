"""Record what a real model answers to requests that offer run_python, as parser fixtures.

    python -m tests.realmodel.record smollm2 [--stream both]

Starts llama-cpp-python's server with the model (tests/support/models.py), asks each prompt
streamed and not, and writes tests/fixtures/model-outputs/<model>-<prompt>-<mode>.json with an
`expect` ({"form", "code"}) to be labelled by hand (written as "unlabelled"). Existing files are
kept. Every request offers the run_python tool, with temperature 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.support.llama_server import llama_server, source
from tests.support.models import MODELS

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "model-outputs"
TOOL = {
    "type": "function",
    "function": {
        "name": "run_python",
        "description": "Run Python code in a sandbox and get stdout, stderr and the last value.",
        "parameters": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "Python source"}},
            "required": ["code"],
        },
    },
}
SYSTEM = "You are a helpful assistant. You can run Python with the run_python tool."
PROMPTS = {
    "primes": "What is the sum of all prime numbers below 100? Use run_python.",
    "fibonacci": "Calculate the first 20 Fibonacci numbers and find which ones are prime.",
    "hello": "Say hello in one short sentence.",
}


def ask(base: str, model: str, prompt: str, stream: bool) -> dict[str, Any]:
    body = {
        "model": model,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
        "tools": [TOOL],
        "tool_choice": "auto",
        "stream": stream,
        "max_tokens": 400,
        "temperature": 0,
    }
    url = f"{base}/chat/completions"
    if not stream:
        message = httpx.post(url, json=body, timeout=1800).json()["choices"][0]["message"]
        return {"content": message.get("content") or "", "tool_calls": message.get("tool_calls")}
    content, calls = "", dict[int, dict[str, Any]]()
    with httpx.stream("POST", url, json=body, timeout=1800) as response:
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            delta = json.loads(line[6:])["choices"][0].get("delta") or {}
            content += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call.get("index", 0), {"id": None, "name": "", "args": ""})
                slot["id"] = call.get("id") or slot["id"]
                fn = call.get("function") or {}
                slot["name"] += fn.get("name") or ""
                slot["args"] += fn.get("arguments") or ""
    tool_calls = [
        {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
        for _, c in sorted(calls.items())
    ]
    return {"content": content, "tool_calls": tool_calls or None}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("--prompts", nargs="*", default=sorted(PROMPTS))
    parser.add_argument("--modes", nargs="*", default=["stream", "json"])
    args = parser.parse_args()
    model = MODELS[args.model]
    OUT.mkdir(parents=True, exist_ok=True)
    with llama_server(model, alias=args.model) as base:
        for name in args.prompts:
            for mode in args.modes:
                path = OUT / f"{args.model}-{name}-{mode}.json"
                if path.exists():
                    continue
                reply = ask(base, args.model, PROMPTS[name], stream=mode == "stream")
                record = {
                    "source": source(model),
                    **reply,
                    "expect": "unlabelled",
                }
                path.write_text(json.dumps(record, indent=2) + "\n")
                print(path.name, json.dumps(reply)[:300], flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
