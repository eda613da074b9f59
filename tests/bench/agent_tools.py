"""`make bench-agent`'s host-tools task: three tool calls, code mode vs one tool per call.

The task needs an order, a product's unit price and a customer's discount, each from a host tool
(tables the page's handlers answer from, tests/browser/pages/agent-tools.js). Two ways, against the
same model server, in one browser:

- `code-mode`: the SDK Agent with `Agent.create({ tools })`: the model sees the tools as Python
  functions and may call all three in one run_python program;
- `tool-per-call`: each tool offered to the model as a tool of its own (no run_python, no Python):
  one model round trip per answer, as an agent without code mode works.

Printed side by side: solved, model requests, seconds, the tool calls the handlers got, runs.
The question names no tool and gives no hint of how to answer.

    python -m tests.bench.agent_tools --dry-run   # the same page against a scripted fake model
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Request, sync_playwright
from pydantic import SecretStr

from backend.settings import Settings
from tests.browser.sandbox.conftest import app_with_page_headers
from tests.support.browser import launch_args
from tests.support.fake_openai import (
    FakeOpenAI,
    Reply,
    json_reply,
    stream_reply,
    tool_call_stream_reply,
)
from tests.support.servers import running

PAGE = "/test-pages/agent-tools.html"
RESULTS = Path(__file__).resolve().parents[2] / "bench-results"
MODES = {
    "code-mode": "Agent.create({ tools }): the tools as Python functions inside run_python",
    "tool-per-call": "each tool a model tool of its own, one per call (no Python)",
}


@dataclass(frozen=True)
class HostTool:
    """A tool the page declares: one string parameter, answered from `answers` by its value."""

    name: str
    description: str
    parameter: str
    answers: dict[str, Any]


@dataclass(frozen=True)
class ToolTask:
    name: str
    question: str
    tools: tuple[HostTool, ...]
    expected: str  # in the final answer (thousands separators ignored)
    needed: tuple[tuple[str, str], ...]  # the (tool, key) calls an answer needs


THREE_TOOLS = ToolTask(
    name="three-tools",
    question="How much does order A-1001 cost in euros after the customer's discount?",
    tools=(
        HostTool(
            "get_order",
            "An order by its id: the customer's id, the product's SKU and the quantity ordered.",
            "order_id",
            {
                "A-1001": {"customer_id": "C-17", "sku": "B-204", "quantity": 3},
                "A-1002": {"customer_id": "C-03", "sku": "B-311", "quantity": 10},
            },
        ),
        HostTool(
            "get_unit_price",
            "A product's unit price in euros, by its SKU.",
            "sku",
            {"B-204": 12.4, "B-311": 7.95},
        ),
        HostTool(
            "get_discount",
            "A customer's discount in percent, by the customer's id.",
            "customer_id",
            {"C-17": 15, "C-03": 0},
        ),
    ),
    expected="31.62",  # 3 × 12.40 = 37.20, less 15 %
    needed=(("get_order", "A-1001"), ("get_unit_price", "B-204"), ("get_discount", "C-17")),
)


@dataclass
class ToolOutcome:
    mode: str
    solved: bool = False
    hung: bool = False
    requests: int = 0
    seconds: float = 0.0
    finish: str = ""
    runs: int = 0
    calls: list[dict[str, str]] = field(default_factory=list)
    answer: str = ""
    error: str = ""
    exchanges: list[dict[str, Any]] = field(default_factory=list)


def spec(task: ToolTask, model: str, max_steps: int) -> dict[str, Any]:
    tools = [asdict(tool) for tool in task.tools]
    return {"question": task.question, "tools": tools, "model": model, "maxSteps": max_steps}


RUN = """async ([mode, spec, ms]) => {
  toolBench.calls.length = 0;
  const late = new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), ms));
  const out = await Promise.race([toolBench[mode](spec), late]);
  return { ...out, calls: [...toolBench.calls] };
}"""


def run_tool_task(
    browser: Browser,
    url: str,
    task: ToolTask,
    mode: str,
    model: str,
    max_steps: int,
    timeout_s: float,
) -> ToolOutcome:
    """One way of answering `task`, in a fresh browser context (its own sandbox and storage)."""
    outcome = ToolOutcome(mode)
    context = browser.new_context()
    try:
        page = context.new_page()
        requests: list[str] = []
        page.on(
            "request", lambda r: requests.append(r.url) if r.url.endswith("/completions") else None
        )
        page.on("request", lambda r: keep_request(r, outcome.exchanges))
        page.goto(url + PAGE)
        page.wait_for_function("() => window.toolBenchReady === true", timeout=60_000)
        start = time.monotonic()
        try:
            out = page.evaluate(RUN, [mode, spec(task, model, max_steps), timeout_s * 1000])
        except Exception as error:  # a stall or a model failure is the finding
            outcome.hung = "timed out" in str(error)
            outcome.error = str(error).splitlines()[0][:300]
            out = None
            # The calls the handlers got before it stalled are part of the finding.
            with contextlib.suppress(Exception):
                outcome.calls = list(page.evaluate("() => [...toolBench.calls]"))
        outcome.seconds = time.monotonic() - start
        outcome.requests = len(requests)
        if out is not None:
            outcome.seconds = float(out["ms"]) / 1000  # from the question on (no sandbox start)
            outcome.answer = str(out["answer"]).strip()
            outcome.finish = str(out["finish"])
            outcome.runs = int(out["runs"])
            outcome.calls = list(out["calls"])
            outcome.solved = solved(task, outcome)
    finally:
        context.close()
    return outcome


def keep_request(request: Request, exchanges: list[dict[str, Any]]) -> None:
    """A model request's messages, when sent (a request that never ends still shows)."""
    if request.url.endswith("/completions"):
        sent = request.post_data_json or {}
        exchanges.append({"messages": sent.get("messages", [])})


def save_transcript(outcome: ToolOutcome, directory: Path = RESULTS) -> Path:
    """bench-results/bench-agent-tools-<mode>.txt: each request's new messages, then the reply."""
    lines: list[str] = []
    seen = 0
    for n, exchange in enumerate(outcome.exchanges, 1):
        messages = exchange["messages"]
        lines.append(f"===== request {n}")
        for message in messages[seen:]:
            text = message.get("content") or ""
            calls = message.get("tool_calls")
            lines.append(
                f"--- {message.get('role')}\n{text}" + (f"\n{json.dumps(calls)}" if calls else "")
            )
        seen = len(messages)
        if n == len(outcome.exchanges):
            break  # its reply is the answer, below
        # The reply is the next request's assistant message (a streamed body is not kept).
        reply = outcome.exchanges[n]["messages"][seen : seen + 1]
        if reply and reply[0].get("role") == "assistant":
            calls = reply[0].get("tool_calls")
            text = reply[0].get("content") or ""
            lines.append(f"--- reply\n{text}" + (f"\n{json.dumps(calls)}" if calls else ""))
            seen += 1
    lines.append(f"===== {outcome.finish or outcome.error}: {outcome.answer}")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"bench-agent-tools-{outcome.mode}.txt"
    path.write_text("\n".join(lines) + "\n")
    path.with_suffix(".json").write_text(json.dumps(outcome.exchanges, indent=1))
    return path


def solved(task: ToolTask, outcome: ToolOutcome) -> bool:
    """The expected figure in the answer, after the calls that give it (not a guess)."""
    made = {(call["name"], call["key"]) for call in outcome.calls}
    return task.expected in outcome.answer.replace(",", "") and set(task.needed) <= made


def tool_table(task: ToolTask, outcomes: list[ToolOutcome]) -> str:
    rows = [
        f"== {task.name}: code mode vs one tool per call",
        f"{'mode':14} {'solved':7} {'requests':>8} {'time s':>7} {'tool calls':>10} "
        f"{'runs':>5}  finish",
    ]
    for o in outcomes:
        status = "HUNG" if o.hung else ("yes" if o.solved else "no")
        rows.append(
            f"{o.mode:14} {status:7} {o.requests:>8} {o.seconds:>7.1f} {len(o.calls):>10} "
            f"{o.runs:>5}  {o.finish or o.error}"
        )
    rows.extend(f"  {mode}: {label}" for mode, label in MODES.items())
    return "\n".join(rows)


# --dry-run: a scripted model that answers the task the way each mode needs, so the page, the
# two loops, the request count and the table are checked without a real model.
CODE = (
    "from wasmbox import tools\n"
    "order = await tools.get_order(order_id='A-1001')\n"
    "price = await tools.get_unit_price(sku=order['sku'])\n"
    "discount = await tools.get_discount(customer_id=order['customer_id'])\n"
    "print(round(order['quantity'] * price * (1 - discount / 100), 2))"
)


def native_calls(*calls: tuple[str, dict[str, str]]) -> Reply:
    """A non-streamed reply with these tool calls (`content: null`, as llama-cpp-python sends)."""
    tool_calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a) in enumerate(calls)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return json_reply(
        {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}
    )


def answer(text: str) -> Reply:
    return json_reply(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
        }
    )


def dry_run() -> int:
    """Both modes against the fake model; exit 1 unless each is solved in the requests scripted."""
    final = "The order costs 31.62 euros after the discount."
    with FakeOpenAI() as fake:
        settings = Settings(
            openai_base_url=fake.base_url,
            openai_api_key=SecretStr("sk-test-not-a-secret"),
            models=["gpt-test"],
            rate_limit="10000/minute",
        )
        with running(app_with_page_headers(True, settings)) as url, sync_playwright() as pw:
            browser = pw.chromium.launch(**launch_args())
            fake.script(tool_call_stream_reply(CODE), stream_reply([final]))
            code = run_tool_task(browser, url, THREE_TOOLS, "code-mode", "gpt-test", 8, 300)
            # Calls as the API's tool_calls, then written as text as Qwen writes them: a Hermes
            # tag, and fenced JSON (the SDK's parser reads both, textToolCalls).
            hermes = (
                '<tool_call>{"name": "get_unit_price", "arguments": {"sku": "B-204"}}</tool_call>'
            )
            fenced = '```json\n{"name": "get_discount", "arguments": {"customer_id": "C-17"}}\n```'
            fake.script(
                native_calls(("get_order", {"order_id": "A-1001"})),
                answer(hermes),
                answer(fenced),
                answer(final),
            )
            per_call = run_tool_task(browser, url, THREE_TOOLS, "tool-per-call", "gpt-test", 8, 300)
            browser.close()
    print(tool_table(THREE_TOOLS, [code, per_call]))
    for o in (code, per_call):
        print(f"  transcript: {save_transcript(o, RESULTS / 'dry-run')}")
    expected = {"code-mode": 2, "tool-per-call": 4}
    ok = all(o.solved and o.requests == expected[o.mode] for o in (code, per_call))
    for o in (code, per_call):
        if not o.solved:
            print(f"{o.mode}: not solved: {o.error or o.answer!r}, calls {o.calls}")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dry-run", action="store_true", help="a scripted model, not a real one")
    args = parser.parse_args()
    if not args.dry_run:
        parser.error("the real-model run is `make bench-agent` (tests/bench/agent.py)")
    return dry_run()


if __name__ == "__main__":
    sys.exit(main())
