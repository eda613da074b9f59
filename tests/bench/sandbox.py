"""Sandbox figures (`make bench-sandbox BROWSER=chromium|firefox|webkit`): the rows W1–W11 of
shared/bench/WORKLOADS.md through the SDK in one headless engine (cross-origin isolated app page,
or a plain one where the engine cannot run isolated: tests/support/engines ENGINE_GAPS), plus
`create` from the warm spare and 10 MB / 100 MB files in and out (W10, W11: tests/bench/sessions.py;
`--only sessions` prints W2, W10 and W11 alone, `--only w11` W11 alone). The same table for
every engine; prints figures only, nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from tests.bench import sessions
from tests.bench.stats import summary
from tests.browser.sandbox.conftest import SDK_PAGE, app_with_page_headers
from tests.support.engines import ENGINE_GAPS, ENGINES, EngineBrowser, EnginePage, launch
from tests.support.servers import running

RUNS = 5
BOOT_TIMEOUT_MS = 180_000
W4 = (
    "import numpy as np, pandas as pd; rng = np.random.default_rng(0); "
    'df = pd.DataFrame({"customer": rng.integers(0, 50, 100_000).astype(str), '
    '"revenue": rng.random(100_000) * 1000}); '
    'print(df.groupby("customer").revenue.sum().nlargest(5))'
)
W7_URLLIB = "import urllib.request; urllib.request.urlopen('http://127.0.0.1:18999/')"
W7_FETCH = "from js import fetch; await fetch('http://127.0.0.1:18999/')"

# In-page helpers: each returns milliseconds (and whatever else the row prints).
TIME_RUN = """async ([code, create, opts]) => {
  const t0 = performance.now();
  const sb = await wasmbox.Sandbox.create(create);
  const t1 = performance.now();
  const r = await sb.execute(code, opts);
  const t2 = performance.now();
  await sb.close();
  return { create: t1 - t0, run: t2 - t1, total: t2 - t0, outcome: r.outcome,
           stdout: r.stdout.length, stateLost: r.stateLost };
}"""
WARM_CALLS = """async () => {
  const sb = await wasmbox.Sandbox.create();
  await sb.execute("1+1");
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await sb.execute("1+1");
    times.push(performance.now() - t);
  }
  await sb.close();
  return times;
}"""
W5_W6 = """async () => {
  const sb = await wasmbox.Sandbox.create();
  let t = performance.now();
  await sb.execute("x = 41");
  const r5 = await sb.execute("print(x + 1)");
  const w5 = performance.now() - t;
  t = performance.now();
  const r6 = await sb.execute("while True: pass", { timeoutMs: 2000 });
  const back = performance.now() - t - 2000;
  t = performance.now();
  const after = await sb.execute("print(x)");
  const next = performance.now() - t;
  await sb.close();
  const kept = after.stdout === "41\\n";
  return { w5, w5ok: r5.stdout === "42\\n", back, next, kept, lost: r6.stateLost };
}"""
FILES = """async (mb) => {
  const sb = await wasmbox.Sandbox.create();
  const data = new Uint8Array(mb * 1024 * 1024 - 1024);
  let t = performance.now();
  await sb.writeFile("blob.bin", data);
  const put = performance.now() - t;
  t = performance.now();
  const back = await sb.readFile("blob.bin");
  const get = performance.now() - t;
  await sb.close();
  return { put, get, ok: back.byteLength === data.byteLength };
}"""


def visit(page: EnginePage, url: str) -> EnginePage:
    page.goto("about:blank")  # a repeat visit is a new document (Firefox aborts a same-URL one)
    page.goto(f"{url}{SDK_PAGE}")
    page.wait_for_function("window.sdkReady === true", timeout=BOOT_TIMEOUT_MS)
    return page


def open_page(browser: EngineBrowser, url: str) -> EnginePage:
    """A new page: its own storage and HTTP cache."""
    return visit(browser.new_page(), url)


def cold_start(browser: EngineBrowser, url: str, runs: int, same_page: bool) -> list[float]:
    """W1 from navigation start to the first result; a new page has a cold HTTP cache, a repeat
    visit (the same page navigated again) a warm one."""
    page = browser.new_page()
    samples = []
    for run in range(runs):
        if run and not same_page:
            page.close()
            page = browser.new_page()
        visit(page, url)
        samples.append(
            page.evaluate(
                "async () => { const sb = await wasmbox.Sandbox.create();"
                " await sb.execute('print(1+1)'); return performance.now(); }"
            )
        )
    page.close()
    return samples


# Warm a spare with `packages`, wait (idle, as a user typing) until the last one is imported, then
# time `code` on it.
WARMED = """async ([code, packages]) => {
  await wasmbox.Sandbox.warmup({ packages });
  const sb = await wasmbox.Sandbox.create();
  const probe = `import sys\\n${JSON.stringify(packages[packages.length - 1])} in sys.modules`;
  const loaded = async () => (await sb.execute(probe)).value["text/plain"] === "True";
  while (!(await loaded())) await new Promise((resolve) => setTimeout(resolve, 250));
  const t = performance.now();
  await sb.execute(code);
  return performance.now() - t;
}"""


def warmed(browser: EngineBrowser, url: str, code: str, packages: list[str]) -> list[float]:
    samples = []
    for _ in range(RUNS):
        page = open_page(browser, url)  # a new page: a new spare
        samples.append(float(page.evaluate(WARMED, [code, packages])))
        page.close()
    return samples


def first_of_page(browser: EngineBrowser, url: str, code: str) -> list[float]:
    """`code` as a page's first session: a new document (warm caches, a cold interpreter), its
    spare left idle 3 s (a user typing) before the sandbox is created."""
    page = browser.new_page()
    samples = []
    for run in range(RUNS + 1):  # the first visit fills the caches
        visit(page, url)
        page.evaluate("wasmbox.Sandbox.warmup()")
        time.sleep(3)
        sample = page.evaluate(TIME_RUN, [code, {}, {}])["run"]
        if run:
            samples.append(sample)
    page.close()
    return samples


def repeat(
    page: EnginePage, code: str, key: str, create: dict[str, Any] | None = None
) -> list[Any]:
    return [page.evaluate(TIME_RUN, [code, create or {}, {}])[key] for _ in range(RUNS)]


def row(label: str, text: str) -> None:
    print(f"{label:<58} {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--browser", choices=ENGINES, default="chromium")
    parser.add_argument("--runs", type=int, default=5, help="samples per row")
    parser.add_argument(
        "--only", choices=["all", "sessions", "w11"], default="all", help="which rows"
    )
    args = parser.parse_args()
    global RUNS
    engine, RUNS = args.browser, args.runs
    isolated = (engine, "isolated") not in ENGINE_GAPS
    with running(app_with_page_headers(isolated)) as url, launch(engine) as browser:
        served = "COOP/COEP" if isolated else "plain (cannot run isolated)"
        row("engine", f"{browser.name} {browser.version}, page served {served}")
        if args.only == "w11":
            sessions.w11(browser, url, RUNS, visit, row)
            return
        if args.only == "sessions":
            page = open_page(browser, url)
            warm = [t for _ in range(RUNS) for t in page.evaluate(WARM_CALLS)]
            row("W2 warm round trip 1+1 (5 calls x 5 sessions)", summary(warm))
            sessions.w10(page, statistics.median(warm), RUNS, row)
            page.close()
            sessions.w11(browser, url, RUNS, visit, row)
            return
        row(
            "W1 cold start, cold browser cache (new page)",
            summary(cold_start(browser, url, RUNS, False)),
        )
        row(
            "W1 cold start, warm browser cache (repeat visit)",
            summary(cold_start(browser, url, RUNS + 1, True)[1:]),
        )
        page = open_page(browser, url)
        page.evaluate("wasmbox.Sandbox.warmup()")
        mode = page.evaluate(
            "async () => (await (await wasmbox.Sandbox.create()).environment()).mode"
        )
        row("mode (environment().mode)", mode)
        spare_create, spare_total = [], []
        for _ in range(RUNS):
            time.sleep(3)  # let the spare boot again
            sample = page.evaluate(TIME_RUN, ["print(1+1)", {}, {}])
            spare_create.append(sample["create"])
            spare_total.append(sample["total"])
        row("W1 warm spare: create + print(1+1)", summary(spare_total))
        row("create from the warm spare", summary(spare_create))
        warm = [t for _ in range(RUNS) for t in page.evaluate(WARM_CALLS)]
        row("W2 warm round trip 1+1 (5 calls x 5 sessions)", summary(warm))
        sessions.w10(page, statistics.median(warm), RUNS, row)
        w3 = "import numpy as np; print(np.arange(1_000_000, dtype=np.int64).sum())"
        row("W3 first numpy import + sum (not preloaded)", summary(repeat(page, w3, "run")))
        row(
            "W3 same, numpy asked for at create (loads meanwhile)",
            summary(repeat(page, w3, "run", {"packages": ["numpy"]})),
        )
        row(
            "W3 same, spare preloaded numpy while idle",
            summary(warmed(browser, url, w3, ["numpy"])),
        )
        row("W3 same, a page's first session", summary(first_of_page(browser, url, w3)))
        row("W4 pandas group/sum/top 5", summary(repeat(page, W4, "run")))
        row("W4 same, a page's first session", summary(first_of_page(browser, url, W4)))
        row(
            "W4 same, spare preloaded numpy+pandas while idle",
            summary(warmed(browser, url, W4, ["numpy", "pandas"])),
        )
        w56 = [page.evaluate(W5_W6) for _ in range(RUNS)]
        row(
            "W5 state: x = 41 then print(x + 1)",
            summary([s["w5"] for s in w56]) + f"  correct={all(s['w5ok'] for s in w56)}",
        )
        row(
            "W6 control back after a 2 s deadline (minus 2000 ms)",
            summary([s["back"] for s in w56]),
        )
        row(
            "W6 next result after the deadline",
            summary([s["next"] for s in w56]) + f"  state kept={[s['kept'] for s in w56]}",
        )
        for label, code in (("urllib", W7_URLLIB), ("js fetch", W7_FETCH)):
            samples = [page.evaluate(TIME_RUN, [code, {"policy": "off"}, {}]) for _ in range(RUNS)]
            row(
                f"W7 network attempt ({label})",
                summary([s["run"] for s in samples]) + f"  outcome={samples[0]['outcome']}",
            )
        for size in ("3_000_000_000", "2_000_000_000"):
            samples = [
                page.evaluate(TIME_RUN, [f"x = bytearray({size})", {}, {}]) for _ in range(RUNS)
            ]
            row(
                f"W8 bytearray({size})",
                summary([s["run"] for s in samples]) + f"  outcome={samples[0]['outcome']}",
            )
        samples = [
            page.evaluate(TIME_RUN, ['print("x" * 50_000_000)', {}, {}]) for _ in range(RUNS)
        ]
        row(
            "W9 50 MB print (capped)",
            summary([s["run"] for s in samples]) + f"  returned {samples[0]['stdout']} chars",
        )
        for mb in (10, 100):
            files = [page.evaluate(FILES, mb) for _ in range(RUNS)]
            row(f"file {mb} MB in (writeFile)", summary([f["put"] for f in files]))
            row(f"file {mb} MB out (readFile)", summary([f["get"] for f in files]))
        page.close()
        sessions.w11(browser, url, RUNS, visit, row)


if __name__ == "__main__":
    main()
