"""Reliability figures (`make bench-reliability`) in headless Chromium, cross-origin isolated: the
deepest recursion of each kind a sandbox worker survives, how long a stack overflow and an
uninterruptible C loop take to settle, files created per second, and a session's first plot.
Prints figures only; nothing here asserts a time.
"""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import Page, sync_playwright

from tests.bench.stats import summary
from tests.browser.sandbox.conftest import SDK_PAGE, app_with_page_headers
from tests.support.browser import launch_args
from tests.support.servers import running

RUNS = 3
UNLIMITED = "import sys\nsys.setrecursionlimit(10**6)\n"
# Each kind's code with DEPTH in place of the nesting depth.
RECURSION_KINDS = {
    "plain Python": "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nf(DEPTH)",
    "through C (__repr__)": (
        "class R:\n    def __init__(s, c): s.c = c\n"
        "    def __repr__(s): return 'R(' + repr(s.c) + ')'\n"
        "x = None\nfor _ in range(DEPTH): x = R(x)\nlen(repr(x))"
    ),
    "through C (sorted key)": (
        "def f(n):\n    return 0 if n == 0 else sorted([n], key=lambda v: f(n - 1))[0]\nf(DEPTH)"
    ),
    "copy.deepcopy": "import copy\nx = []\nfor _ in range(DEPTH): x = [x]\ncopy.deepcopy(x); 0",
    "json.dumps": "import json\nx = []\nfor _ in range(DEPTH): x = [x]\nlen(json.dumps(x))",
    "json.loads": "import json\njson.loads('[' * DEPTH + ']' * DEPTH); 0",
}
DEPTHS = (100, 200, 300, 400, 450, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000, 50000)
RUN = "([id, code, o]) => wasmbox.run(id, code, o)"
CREATE = "async o => (await wasmbox.Sandbox.create(o)).id"
MANY_FILES = (
    "import os, time\nos.makedirs('many', exist_ok=True)\nt = time.perf_counter()\n"
    "for i in range(10_000):\n    open(f'many/{i}', 'w').close()\n"
    "print(time.perf_counter() - t)"
)
FIRST_PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()"


def row(label: str, text: str) -> None:
    print(f"{label:<46} {text}", flush=True)


def run(page: Page, sandbox: str, code: str, **options: object) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    result = page.evaluate(RUN, [sandbox, code, options])
    return result, (time.perf_counter() - started) * 1000


def deepest(page: Page, sandbox: str, code: str) -> str:
    """The last depth that ran to the end, and how the next one ended."""
    survived = 0
    for depth in DEPTHS:
        result, _ = run(page, sandbox, UNLIMITED + code.replace("DEPTH", str(depth)))
        if result["outcome"] != "OUTCOME_OK":
            lost = " (worker lost)" if result["stateLost"] else ""
            return f"{survived:>6} levels; {depth}: {result['error']['name']}{lost}"
        survived = depth
    return f"{survived:>6} levels (all tried)"


def main() -> None:
    with running(app_with_page_headers(True)) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(**launch_args())
        page = browser.new_context().new_page()
        page.set_default_timeout(300_000)
        page.goto(f"{url}{SDK_PAGE}")
        page.wait_for_function("() => window.sdkReady === true")
        sandbox = page.evaluate(CREATE, {"policy": "off"})
        limit = page.evaluate(f"wasmbox.Sandbox.get('{sandbox}').environment()")["limits"]
        row("recursion limit (environment())", str(limit["recursionLimit"]))
        for kind, code in RECURSION_KINDS.items():
            row(f"deepest recursion: {kind}", deepest(page, sandbox, code))
        settle = [run(page, sandbox, "import json\njson.loads('[' * 100_000)", timeoutMs=30_000)]
        row("stack overflow, 30 s limit: settled in", summary([ms for _, ms in settle]))
        row("  its outcome", f"{settle[0][0]['outcome']} {settle[0][0]['error']['name']}")
        loops = [run(page, sandbox, "sum(range(10**11))", timeoutMs=2000)[1] for _ in range(RUNS)]
        row("C loop, 2 s limit (+2 s grace): settled in", summary(loops))
        files = [float(run(page, sandbox, MANY_FILES)[0]["stdout"]) for _ in range(RUNS)]
        row("10,000 empty files: Python loop", summary([10_000 / s for s in files], "files/s"))
        whole = [run(page, sandbox, MANY_FILES)[1] for _ in range(RUNS)]
        row("10,000 empty files: whole run", summary(whole))
        first, second = [], []
        for _ in range(RUNS):
            fresh = page.evaluate(CREATE, {})
            first.append(run(page, fresh, FIRST_PLOT)[1])
            second.append(run(page, fresh, FIRST_PLOT)[1])
            page.evaluate(f"wasmbox.Sandbox.get('{fresh}').close()")
        row("first plot of a session", summary(first))
        row("second plot of a session", summary(second))
        browser.close()


if __name__ == "__main__":
    main()
