"""The in-page model against llama.cpp's native server on this machine, in one run
(`make bench-local-model`). Nothing asserts: it prints figures, and the ratios are the figure
(the machine is shared; say `uptime` next to them).

For each model (SmolLM2-135M, and Qwen2.5-Coder-1.5B with `--models smollm2 qwen-coder`):
- load: cold (an empty store: fetch, sha256, store, load) and from the page's store (reload);
- one prompt (the same messages everywhere): prompt tokens/s and generation tokens/s in the page,
  single-threaded and multi-threaded (the page is cross-origin isolated), and the native server's;
- an agent step after the first: the same conversation plus one exchange, with the prefix cached.

    python -m tests.bench.local_model [--models smollm2 qwen-coder] [--max-tokens 48]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

import httpx
from fastapi.staticfiles import StaticFiles
from playwright.sync_api import BrowserContext, Page, sync_playwright

from tests.browser.sandbox.conftest import app_with_page_headers
from tests.support.browser import launch_args
from tests.support.llama_server import llama_server
from tests.support.models import MODELS, Model, ensure
from tests.support.servers import running

PAGE = "/test-pages/local-model.html"
TIMEOUT_MS = 1_800_000
SYSTEM = (
    "You answer questions by running Python with the run_python tool, then explaining the real "
    "output. Python runs in the user's browser (Pyodide) with numpy, pandas, matplotlib, scipy "
    "and sympy; there is no network and no pip. Use run_python for any computation: never guess "
    "a number you could compute. Print what you need to read. Variables and files persist "
    "between runs. When a run fails, read the error, fix the code and run it again. "
) * 3
QUESTION = "What is the sum of all primes below 100? Explain how you would compute it."
MESSAGES = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTION}]
FOLLOW_UP = {"role": "user", "content": "Result of run_python:\n1060"}


def page_load(page: Page, model: Model, url: str, threads: int, max_tokens: int) -> dict[str, Any]:
    options = {"url": url, "sha256": model.sha256, "threads": threads, "maxTokens": max_tokens}
    options |= {"contextSize": 2048, "gpu": False, "temperature": 0}
    started = time.monotonic()
    result: dict[str, Any] = page.evaluate("o => localTest.load(o)", options)
    if "error" in result:
        phases = page.evaluate("() => localTest.state.progress.map((p) => p.phase)")
        reached = [p for i, p in enumerate(phases) if p != "download" or i == 0]
        raise RuntimeError(f"load failed after {reached}: {result['error']}")
    return {**result["info"], "wallS": time.monotonic() - started}


def page_chat(page: Page, messages: list[dict[str, str]]) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("m => localTest.chat(m)", messages)
    if "error" in result:
        raise RuntimeError(f"chat failed: {result['error']}")
    return result


def native(model: Model, max_tokens: int, threads: int) -> dict[str, float]:
    """Time to first token and the token rate after it, streamed from llama.cpp's server."""
    with llama_server(model, alias="bench", n_ctx=2048, threads=threads, chat_format=None) as base:
        body = {"model": "bench", "messages": MESSAGES, "stream": True}
        body |= {"max_tokens": max_tokens, "temperature": 0}
        started = time.monotonic()
        first = last = 0.0
        tokens = 0
        with httpx.stream("POST", f"{base}/chat/completions", json=body, timeout=1800) as response:
            for line in response.iter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                delta = json.loads(line[6:])["choices"][0].get("delta", {})
                if delta.get("content"):
                    tokens += 1
                    last = time.monotonic()
                    first = first or last
        return {
            "promptS": first - started,
            "tokens": tokens,
            "genPerS": (tokens - 1) / (last - first) if last > first else 0.0,
        }


def describe(cold: dict[str, Any], stored: dict[str, Any], first: dict[str, Any]) -> str:
    return (
        f"load cold {cold['loadMs'] / 1000:.1f} s, from store {stored['loadMs'] / 1000:.1f} s"
        f" ({stored['threads']} threads, multi {stored['multiThreaded']}); prompt"
        f" {first['promptTokens']} tok at {first['promptPerSecond']:.1f} tok/s, generation"
        f" {first['generatedTokens']} tok at {first['generationPerSecond']:.1f} tok/s"
    )


def in_page(model: Model, max_tokens: int, threads: int) -> list[tuple[str, dict[str, Any], str]]:
    """(label, the first answer's timings, description) per thread count."""
    path = ensure(model)
    app = app_with_page_headers(True)
    app.mount("/test-models", StaticFiles(directory=path.parent), name="test-models")
    rows = []
    with running(app) as base, sync_playwright() as pw:
        url = f"/test-models/{model.filename}"
        for label, n in (("single-threaded", 1), (f"{threads} threads", threads)):
            # A new profile on disk: an empty store, so the first load is cold. Not an incognito
            # context: there Chromium keeps blobs in memory and a 1.1 GB model cannot be read back.
            with tempfile.TemporaryDirectory(prefix="bench-local-") as profile:
                context = pw.chromium.launch_persistent_context(profile, **launch_args())
                rows.append(one_config(context, base + PAGE, model, url, n, max_tokens, label))
                context.close()
    return rows


def one_config(
    context: BrowserContext,
    page_url: str,
    model: Model,
    url: str,
    n: int,
    max_tokens: int,
    label: str,
) -> tuple[str, dict[str, Any], str]:
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(page_url)
    page.wait_for_function("() => window.localReady === true")
    cold = page_load(page, model, url, n, max_tokens)
    print(f"  ({label}: cold load {cold['loadMs'] / 1000:.1f} s)", flush=True)
    page.reload()
    page.wait_for_function("() => window.localReady === true")
    stored = page_load(page, model, url, n, max_tokens)
    print(f"  ({label}: load from the store {stored['loadMs'] / 1000:.1f} s)", flush=True)
    answer = page_chat(page, MESSAGES)
    print(f"  ({label}: first answer {answer['ms'] / 1000:.1f} s)", flush=True)
    first = answer["timings"]
    reply = "".join(d.get("content") or "" for d in answer["deltas"])
    step = page_chat(page, [*MESSAGES, {"role": "assistant", "content": reply}, FOLLOW_UP])
    t = step["timings"]
    text = describe(cold, stored, first)
    text += f"; next agent step {t['totalMs'] / 1000:.1f} s"
    text += f" ({t['cachedTokens']} tokens cached, {t['promptTokens']} new)"
    return (f"page, {label}", first, text)


def bench(model: Model, max_tokens: int, threads: int) -> None:
    rows = in_page(model, max_tokens, threads)
    nat = native(model, max_tokens, threads)
    prompt_tokens = rows[0][1]["promptTokens"]
    native_prompt = prompt_tokens / nat["promptS"] if nat["promptS"] > 0 else 0.0
    print(f"\n{model.name} ({model.size / 1e6:.0f} MB)")
    for label, _, text in rows:
        print(f"  {label}: {text}")
    print(
        f"  native llama.cpp server ({threads} threads): prompt ~{native_prompt:.1f} tok/s"
        f" (first token after {nat['promptS']:.1f} s), generation {nat['genPerS']:.1f} tok/s"
    )
    for label, first, _ in rows:
        prompt_ratio = first["promptPerSecond"] / native_prompt if native_prompt else 0.0
        gen_ratio = first["generationPerSecond"] / nat["genPerS"] if nat["genPerS"] else 0.0
        print(f"  {label} / native: prompt {prompt_ratio:.2f}x, generation {gen_ratio:.2f}x")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["smollm2"], choices=sorted(MODELS))
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=min(os.cpu_count() or 2, 8))
    args = parser.parse_args(argv)
    one, five, _ = os.getloadavg()
    print(f"load average {one:.1f} (1 min), {five:.1f} (5 min); {os.cpu_count()} cores")
    for name in args.models:
        bench(MODELS[name], args.max_tokens, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
