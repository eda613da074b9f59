"""Where a generated token's time goes in the page, against native llama.cpp (prints only).

The machine is shared, so besides wall-clock rates this counts CPU time, which another
process's load hardly changes: CPU seconds of the page's Chromium (every process of it) per
generated token, and of native llama.cpp (llama-cpp-python, same file, prompt and threads) per
generated token. It also times what is not the engine's arithmetic: a `get_result` round trip
to the engine's worker that does no work (what each token's request costs), and the page's own
time between two tokens' requests. `--perf FILE` records the page's renderers with Linux perf
during the last request and prints the hottest functions, the engine's by name.

    python -m tests.bench.local_model_tokens [--models smollm2] [--threads 1] [--perf /tmp/p.data]
        [--engine-options {} '{"model": "/tmp/SmolLM2-135M-Instruct.Q8_0.gguf"}' …]
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import itertools
import json
import os
import re
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from fastapi.staticfiles import StaticFiles
from playwright.sync_api import Page, sync_playwright

from tests.bench.local_model import MESSAGES
from tests.browser.sandbox.conftest import app_with_page_headers
from tests.support.browser import launch_args
from tests.support.llama_server import VENV
from tests.support.models import MODELS, Model, ensure
from tests.support.servers import running

PAGE = "/test-pages/local-model.html"
RECORDED: list[int] = []
# What engine.ts sets beyond the shared options in LOAD.
ENGINE_OPTIONS: dict[str, Any] = {"flash_attn": False}
ROOT = Path(__file__).resolve().parents[2]
# The engine's function names, for a wasm without a name section (wllama before 3.13 shipped this
# table for its stack traces instead; from 3.13 the wasm names its functions itself).
NAMES = ROOT / "node_modules" / "@wllama" / "wllama" / "src" / "wasm" / "source-map.ts"

# The engine's folder (wllama.js, wllama.wasm) under the site. A variant's "engine" names another
# one, e.g. another wllama release's build copied under build/js/sdk/, to compare two engines in
# one run: `--engine-options {} '{"engine": "/sdk/local-model-old/"}'`.
ENGINE = "/sdk/local-model/"

# A variant's "model" names another GGUF file (e.g. the same model quantized another way) that
# it loads instead of the pinned one; native llama.cpp then runs that file too:
# `--engine-options {} '{"model": "/tmp/SmolLM2-135M-Instruct.Q8_0.gguf"}'`.
GGUF_MAGIC = b"GGUF"

# The engine as engine.ts loads it (ENGINE_OPTIONS), plus `options`.
LOAD = r"""
async (o) => {
  const { Wllama } = await import(o.engine + 'wllama.js');
  const quiet = { debug() {}, log() {}, warn() {}, error: console.error.bind(console) };
  const file = new File([await (await fetch(o.url)).blob()], o.url.split('/').pop());
  const w = new Wllama({ default: o.engine + 'wllama.wasm' },
    { suppressNativeLog: true, logger: quiet });
  w.setCompat(null);
  await w.loadModel([file], { n_ctx: 2048, n_threads: o.threads, n_parallel: 1, jinja: true,
    warmup: false, n_gpu_layers: 0, ...o.options });
  const roundTrips = [];
  for (let i = 0; i < 100; i++) {
    const s = performance.now();
    // An unknown request: the worker answers at once, so this is the messaging alone.
    await w.proxy.wllamaAction('get_result', { _name: 'gres_req', req_id: 987654 });
    roundTrips.push(performance.now() - s);
  }
  const action = w.proxy.wllamaAction.bind(w.proxy);
  window.tokenProbe = { engine: w, calls: [] };
  w.proxy.wllamaAction = async (name, body) => {
    const s = performance.now();
    const result = await action(name, body);
    if (name === 'get_result') window.tokenProbe.calls.push([s, performance.now()]);
    return result;
  };
  return roundTrips;
}
"""

# One request as chat.ts sends it; the page's time between two `get_result` calls is its own.
ASK = r"""
async (o) => {
  const probe = window.tokenProbe;
  probe.calls = [];
  const chunks = await probe.engine.createChatCompletion({ messages: o.messages, stream: true,
    max_tokens: o.maxTokens, temperature: 0, seed: 0, cache_prompt: true, return_progress: true });
  let timings = null;
  let text = '';
  for await (const chunk of chunks) {
    if (chunk.timings) timings = chunk.timings;
    text += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return { timings, text, calls: probe.calls };
}
"""

NATIVE = r"""
import json, sys, time
import llama_cpp
path, threads, max_tokens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
messages = json.loads(sys.argv[4])
llm = llama_cpp.Llama(
    model_path=path, n_ctx=2048, n_threads=threads, n_threads_batch=threads, verbose=False
)
for _ in range(2):
    first = cpu = None
    tokens = 0
    chunks = llm.create_chat_completion(
        messages=messages, max_tokens=max_tokens, temperature=0, stream=True
    )
    for chunk in chunks:
        if chunk["choices"][0]["delta"].get("content"):
            tokens += 1
            now = time.monotonic()
            if first is None:
                first, cpu = now, time.process_time()
    cpu_ms = 1000 * (time.process_time() - cpu) / (tokens - 1)
    print(json.dumps({"tokens": tokens, "perS": (tokens - 1) / (now - first), "cpuMs": cpu_ms}))
    llm.reset()
"""


def processes() -> dict[int, tuple[int, int, bytes]]:
    """pid: (parent, CPU ticks, command line) of every process."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        found[int(pid)] = (int(fields[1]), int(fields[11]) + int(fields[12]), cmdline)
    return found


def browser_tree(profile: str) -> dict[int, tuple[int, int, bytes]]:
    """The Chromium using `profile` and all its descendants."""
    every = processes()
    tree = {
        pid
        for pid, (_, _, cmd) in every.items()
        if profile.encode() in cmd and b"--type=" not in cmd and b"crashpad" not in cmd
    }
    while grown := {pid for pid, (parent, _, _) in every.items() if parent in tree} - tree:
        tree |= grown
    return {pid: every[pid] for pid in tree}


def cpu_seconds(profile: str) -> float:
    return sum(ticks for _, ticks, _ in browser_tree(profile).values()) / os.sysconf("SC_CLK_TCK")


def engine_names() -> dict[str, str]:
    """wasm-function index → name, from wllama's table (gzip: first id, count, names, indexes)."""
    if not NAMES.exists():
        return {}
    table = re.search(r'"default":\s*"([^"]+)"', NAMES.read_text())
    if not table:
        return {}
    raw = gzip.decompress(base64.b64decode(table.group(1)))
    first, count, named = struct.unpack_from("<III", raw, 0)
    at, names = 12, []
    for _ in range(named):
        names.append(raw[at + 1 : at + 1 + raw[at]].decode(errors="replace"))
        at += 1 + raw[at]
    indexes = struct.unpack_from(f"<{count}H", raw, at)
    return {str(first + i): names[n] for i, n in enumerate(indexes) if n != 0xFFFF}


def hottest(perf_data: str, top: int = 12) -> list[str]:
    report = subprocess.run(
        ["perf", "report", "-i", perf_data, "--no-children", "--sort", "symbol", "--stdio"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    names = engine_names()
    rows = [line.strip() for line in report.splitlines() if re.match(r"\s+\d+\.\d+%", line)]
    named = [re.sub(r"wasm-function\[(\d+)\]", lambda m: names.get(m[1], m[0]), r) for r in rows]
    return [re.sub(r"\s+-\s+-\s*$", "", row) for row in named[:top]]


def native(path: Path, threads: int, max_tokens: int) -> dict[str, float]:
    """The second of two identical requests (the first warms the process up)."""
    cmd = [str(VENV / "bin" / "python"), "-c", NATIVE, str(path), str(threads)]
    cmd += [str(max_tokens), json.dumps(MESSAGES)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def page_requests(
    page: Page, profile: str, url: str, threads: int, options: dict[str, Any], perf: str | None
) -> tuple[list[float], list[dict[str, Any]]]:
    """Two identical requests (the second's prompt is all cached: generation alone)."""
    max_tokens = options.pop("max_tokens")
    engine = options.pop("engine", ENGINE)
    load = {"url": url, "threads": threads, "options": options, "engine": engine}
    round_trips = page.evaluate(LOAD, load)
    answers = []
    for i in range(2):
        recorder = None
        if perf and i == 1:
            renderers = [
                p for p, (_, _, c) in browser_tree(profile).items() if b"--type=renderer" in c
            ]
            RECORDED.extend(browser_tree(profile))  # every process of it writes a map
            pids = ",".join(map(str, renderers))
            recorder = subprocess.Popen(
                ["perf", "record", "-F", "499", "-o", perf, "-p", pids],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        before = cpu_seconds(profile)
        answer = page.evaluate(ASK, {"messages": MESSAGES, "maxTokens": max_tokens})
        answer["cpuS"] = cpu_seconds(profile) - before
        if recorder:
            recorder.send_signal(signal.SIGINT)
            recorder.wait()
        answers.append(answer)
    page.evaluate("() => window.tokenProbe.engine.exit()")
    return round_trips, answers


def variant_file(variant: dict[str, Any]) -> Path | None:
    """The GGUF file a variant's "model" names, checked before anything runs."""
    if "model" not in variant:
        return None
    path = Path(variant["model"]).resolve()
    if not path.is_file():
        raise SystemExit(f'--engine-options: "model" {variant["model"]!r} is not a file')
    with path.open("rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise SystemExit(f'--engine-options: "model" {variant["model"]!r} is not a GGUF file')
    return path


def report(
    model: Model, threads: int, round_trips: list[float], answers: list[dict[str, Any]]
) -> float:
    """The first request's prompt rate; the second's (prompt cached) generation and its CPU."""
    prompt = answers[0]["timings"]
    answer = answers[1]
    t = answer["timings"]
    calls = answer["calls"]
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(calls)]
    durations = [b - a for a, b in calls]
    generated = max(int(t["predicted_n"]) - 1, 1)
    cpu_ms = 1000 * float(answer["cpuS"]) / generated
    print(f"{model.name}, {threads} thread(s), {t['predicted_n']} tokens generated, prompt cached")
    print(
        f"  page, first request: prompt {prompt['prompt_n']} tok at"
        f" {prompt['prompt_per_second']:.1f} tok/s"
    )
    print(
        f"  page: {t['predicted_per_second']:.2f} tok/s; {cpu_ms:.0f} CPU-ms per generated token"
        f" (all of the browser's processes); per token: the engine's get_result call"
        f" {statistics.median(durations):.1f} ms (median), of which a call doing nothing costs"
        f" {statistics.median(round_trips):.2f} ms; the page's own time between two calls"
        f" {statistics.median(gaps):.3f} ms (median), {sum(gaps):.1f} ms in all"
    )
    # Variants that answer alike at temperature 0 print the same digest.
    digest = hashlib.sha256(answer["text"].encode()).hexdigest()[:12]
    print(f"  reply {digest}: {answer['text'][:60]!r}")
    return cpu_ms


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["smollm2"], choices=sorted(MODELS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--perf", help="perf record the renderers during the last request")
    parser.add_argument(
        "--engine-options",
        type=json.loads,
        default=[{}],
        nargs="+",
        help="load options to compare in one run, each JSON, e.g. {} '{\"flash_attn\": true}'",
    )
    args = parser.parse_args(argv)
    one, five, _ = os.getloadavg()
    print(f"load average {one:.1f} (1 min), {five:.1f} (5 min); {os.cpu_count()} cores")
    files = [variant_file(variant) for variant in args.engine_options]
    for name in args.models:
        model = MODELS[name]
        path = ensure(model)
        app = app_with_page_headers(True)
        app.mount("/test-models", StaticFiles(directory=path.parent), name="test-models")
        urls = []
        for i, file in enumerate(files):
            if file is None:
                urls.append(f"/test-models/{model.filename}")
                continue
            app.mount(f"/test-models-{i}", StaticFiles(directory=file.parent), name=f"m{i}")
            urls.append(f"/test-models-{i}/{file.name}")
        with (
            running(app) as base,
            sync_playwright() as pw,
            tempfile.TemporaryDirectory(prefix="bench-tokens-") as profile,
        ):
            launch = launch_args()
            if args.perf:  # JIT code names for perf (/tmp/perf-PID.map), the engine's among them
                flags = "--js-flags=--perf-basic-prof --no-logfile-per-isolate"
                flags += f" --logfile={profile}/v8.log"
                launch["args"] = [*launch["args"], flags]
            context = pw.chromium.launch_persistent_context(profile, **launch)
            page = context.new_page()
            page.set_default_timeout(1_800_000)
            page.goto(base + PAGE)
            page.wait_for_function("() => window.localReady === true")
            rows = []
            for i, variant in enumerate(args.engine_options):
                options = {**ENGINE_OPTIONS, **variant, "max_tokens": args.max_tokens}
                options.pop("model", None)
                last = i == len(args.engine_options) - 1
                perf = args.perf if last else None
                round_trips, answers = page_requests(
                    page, profile, urls[i], args.threads, options, perf
                )
                rows.append((variant, round_trips, answers))
            context.close()
        natives: dict[Path, dict[str, float]] = {}
        for file in dict.fromkeys(file or path for file in files):
            natives[file] = native(file, args.threads, args.max_tokens)
        for (variant, round_trips, answers), file in zip(rows, files, strict=True):
            print(f"engine options {json.dumps({**ENGINE_OPTIONS, **variant})}:")
            cpu_ms = report(model, args.threads, round_trips, answers)
            nat = natives[file or path]
            print(f"  page / native CPU per generated token {cpu_ms / nat['cpuMs']:.1f}x")
        for file, nat in natives.items():
            print(
                f"  native llama.cpp, {file.name}: {nat['perS']:.2f} tok/s; {nat['cpuMs']:.1f}"
                " CPU-ms per generated token"
            )
        if args.perf:
            print("  the page's hottest functions during that request (perf):")
            for row in hottest(args.perf):
                print(f"    {row}")
            for pid in RECORDED:
                Path(f"/tmp/perf-{pid}.map").unlink(missing_ok=True)
        print(f"  (load average now {os.getloadavg()[0]:.1f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
