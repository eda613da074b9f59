"""Reliability figures (`make bench-reliability BROWSER=chromium|firefox|webkit`): the deepest
recursion of each kind a sandbox worker survives, how long a stack overflow and an uninterruptible
C loop take to settle, files created per second, a session's first plot (with and without the
spare's matplotlib preload), and a 10x10 seaborn pairplot next to native CPython's (the files,
first plot and pairplot rows are tests/bench/files_plots.py's, which bench-sandbox prints too,
in each engine's column). Cross-origin
isolated where the engine can be (WebKitGTK cannot: served plain). Prints figures only; asserts no
time.
"""

from __future__ import annotations

import argparse
from typing import Any

from tests.bench import files_plots
from tests.bench.files_plots import FIRST_PLOT, PLOT_TIMEOUT_MS, PRELOADED, close, create
from tests.bench.stats import summary
from tests.browser.sandbox.conftest import SDK_PAGE, app_with_page_headers
from tests.support.engines import ENGINE_GAPS, ENGINES, EnginePage, launch
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
DEPTHS = (100, 150, 200, 250, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000, 50000)
# files_plots.RUN, once the sandbox has its worker: a run after a kill first waits for the
# replacement.
RUN_READY = """async ([id, code, o]) => {
  await wasmbox.run(id, "1");
  const t = performance.now();
  const result = await wasmbox.run(id, code, o);
  return { result, ms: performance.now() - t };
}"""
# As the app starts a conversation: a spare asked to preload matplotlib, claimed at once (it goes
# on preloading in the session's worker), then a user who types for a while.
TYPING_MS = 10_000
CREATE_WARMED = """async ([packages, typingMs]) => {
  wasmbox.Sandbox.cooldown();
  void wasmbox.Sandbox.warmup({ packages });
  const id = (await wasmbox.Sandbox.create()).id;
  await new Promise((resolve) => setTimeout(resolve, typingMs));
  return id;
}"""
PARTS = ("recursion", "settle", "files", "plot", "pairplot")


def row(label: str, text: str, samples: list[float] | None = None) -> None:
    """`samples`: for bench-sandbox's ratios (files_plots.Row); here only the text is printed."""
    print(f"{label:<46} {text}", flush=True)


def run(
    page: EnginePage, sandbox: str, code: str, ready: bool = False, **options: object
) -> tuple[dict[str, Any], float]:
    timed = page.evaluate(RUN_READY if ready else files_plots.RUN, [sandbox, code, options])
    return timed["result"], float(timed["ms"])


def deepest(page: EnginePage, sandbox: str, code: str) -> str:
    """The last depth that ran to the end, and how the next one ended."""
    survived = 0
    for depth in DEPTHS:
        result, ms = run(page, sandbox, UNLIMITED + code.replace("DEPTH", str(depth)))
        if result["outcome"] != "OUTCOME_OK":
            lost = ", worker lost" if result["stateLost"] else ""
            return (
                f"{survived:>6} levels; {depth}: {result['outcome']} "
                f"{result['error']['name']} in {ms:.0f} ms{lost}"
            )
        survived = depth
    return f"{survived:>6} levels (all tried)"


def recursion(page: EnginePage, sandbox: str) -> None:
    env = page.evaluate(f"wasmbox.Sandbox.get('{sandbox}').environment()")
    row("recursion limit (environment())", str(env["limits"]["recursionLimit"]))
    for kind, code in RECURSION_KINDS.items():
        row(f"deepest recursion: {kind}", deepest(page, sandbox, code))


def settle(page: EnginePage, sandbox: str) -> None:
    overflow, ms = run(
        page, sandbox, "import json\njson.loads('[' * 100_000)", ready=True, timeoutMs=30_000
    )
    row("stack overflow, 30 s limit: settled in", f"{ms:8.1f} ms")
    row("  its outcome", f"{overflow['outcome']} {overflow['error']['name']}")
    loops = [run(page, sandbox, "sum(range(10**11))", True, timeoutMs=2000) for _ in range(RUNS)]
    row("C loop, 2 s limit (+2 s grace): settled in", summary([ms for _, ms in loops]))
    row("  its outcome", ", ".join(sorted({r["outcome"] for r, _ in loops})))


def plot(page: EnginePage) -> None:
    files_plots.first_plots(page, RUNS, row)
    for packages in ([], ["matplotlib"]):
        warmed, preloaded = [], 0
        for _ in range(RUNS):
            fresh = page.evaluate(CREATE_WARMED, [packages, TYPING_MS])
            result, ms = run(
                page, fresh, PRELOADED + FIRST_PLOT + "\npre", timeoutMs=PLOT_TIMEOUT_MS
            )
            warmed.append(ms)
            preloaded += (result["value"] or {}).get("text/plain") == "True"
            close(page, fresh)
        label = "spare preloaded matplotlib" if packages else "spare without packages"
        row(f"first plot after {TYPING_MS // 1000} s, {label}", summary(warmed))
        row("  pyplot imported before the cell", f"{preloaded}/{RUNS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browser", choices=ENGINES, default="chromium")
    parser.add_argument("--only", choices=PARTS, action="append", help="parts to run (default all)")
    args = parser.parse_args()
    parts = args.only or PARTS
    isolated = (args.browser, "isolated") not in ENGINE_GAPS
    with running(app_with_page_headers(isolated)) as url, launch(args.browser) as browser:
        row("engine", f"{browser.name} {browser.version}, {'isolated' if isolated else 'plain'}")
        page = browser.new_page()
        page.goto(f"{url}{SDK_PAGE}")
        page.wait_for_function("window.sdkReady === true", timeout=300_000)
        sandbox = create(page, policy="off")
        if "recursion" in parts:
            recursion(page, sandbox)
        if "settle" in parts:
            settle(page, sandbox)
        if "files" in parts:
            files_plots.many_files(page, sandbox, RUNS, row)
        if "plot" in parts:
            plot(page)
        if "pairplot" in parts:
            files_plots.pairplot(page, RUNS, row)
        page.close()


if __name__ == "__main__":
    main()
