"""The next warm spare boots when the page is idle: a spare's boot takes a core for about a
second, and started the moment a sandbox claimed the last one it slowed that sandbox's first run."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.sandbox.conftest import SDK_PAGE
from tests.browser.sandbox.plot_ready import KEEP_PLOT_SNAPSHOT

# Deadlines and graces in wall-clock time: run alone, after the parallel pass (Makefile).
pytestmark = [pytest.mark.browser, pytest.mark.timing]

# Frames on the page `sample` seconds into a run of `seconds` of busy Python (counted when the
# run says so on stdout, while it still runs), then once it has ended.
FRAMES_DURING_A_RUN = """async ([seconds, sample]) => {
  const frames = () => document.querySelectorAll("iframe").length;
  const sb = await wasmbox.Sandbox.create();
  let during = null;
  const busy = (until) => `end = start + ${until}\\nwhile time.time() < end: pass\\n`;
  const code = "import time\\nstart = time.time()\\n" + busy(sample)
    + "print('sample', flush=True)\\n" + busy(seconds);
  await sb.execute(code, { onStdout: () => (during ??= frames()) });
  return { during, after: frames() };
}"""
TWO_FRAMES = "() => document.querySelectorAll('iframe').length === 2"


def open_page(browser: Browser, server: str) -> tuple[BrowserContext, Page]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{server}{SDK_PAGE}")
    page.wait_for_function("() => window.sdkReady === true")
    return context, page


def test_the_next_spare_waits_for_the_run_to_end(browser: Browser, isolated_server: str) -> None:
    context, page = open_page(browser, isolated_server)
    frames = page.evaluate(FRAMES_DURING_A_RUN, [0.8, 0.7])
    assert frames["during"] == 1  # the sandbox's own frame only, near the run's end
    page.wait_for_function(TWO_FRAMES, timeout=60_000)  # then the new spare's
    context.close()


def test_a_long_run_does_not_keep_the_spare_away(browser: Browser, isolated_server: str) -> None:
    context, page = open_page(browser, isolated_server)
    frames = page.evaluate(FRAMES_DURING_A_RUN, [3, 2.2])
    assert frames == {"during": 2, "after": 2}  # started at the latest 1.5 s after the claim
    context.close()


# Run as a claimed spare's first cell: what a rehearsal (wasm_runtime/sandbox/rehearsal.ts)
# could have left behind.
REHEARSAL_TRACES = (
    "import linecache, sys\n"
    "[name for name in ('x', '_') if name in globals()]"
    " + [key for key in linecache.cache if key.startswith('<rehearsal')]"
)


def test_a_claimed_spare_keeps_nothing_of_its_rehearsal(
    browser: Browser, isolated_server: str
) -> None:
    context, page = open_page(browser, isolated_server)
    results = page.evaluate(
        """async ([traces]) => {
          await wasmbox.Sandbox.warmup();
          while (!performance.getEntriesByName("wasmbox:spare-rehearsed").length)
            await new Promise((resolve) => setTimeout(resolve, 50));
          const sb = await wasmbox.Sandbox.create();
          return [await sb.execute(traces), await sb.execute("[1, 2][5]")];
        }""",
        [REHEARSAL_TRACES],
    )
    traces, error = results
    assert traces["value"]["text/plain"] == "[]"
    assert 'File "<cell-2>", line 1' in error["error"]["traceback"]
    context.close()


# Frames on the page after `seconds` of runs with `gapMs` between them, as a program sends them.
FRAMES_WITH_A_QUIET_REFILL = """async ([seconds, gapMs, refill]) => {
  const frames = () => document.querySelectorAll("iframe").length;
  await wasmbox.Sandbox.warmup({ refill });
  const sb = await wasmbox.Sandbox.create();
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    await sb.execute("1+1");
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return frames();
}"""


def test_a_quiet_refill_waits_for_a_pause_in_the_runs(
    browser: Browser, isolated_server: str
) -> None:
    context, page = open_page(browser, isolated_server)
    # Past the 1.5 s that bounds the default rule, with the page idle most of the time between
    # runs (what a sample now and then would take for a pause): still only the sandbox's frame.
    assert page.evaluate(FRAMES_WITH_A_QUIET_REFILL, [2.5, 60, "quiet"]) == 1
    page.wait_for_function(TWO_FRAMES, timeout=60_000)  # then a pause: the next spare boots
    context.close()


def test_the_next_spare_waits_for_a_pause_between_runs(
    browser: Browser, isolated_server: str
) -> None:
    context, page = open_page(browser, isolated_server)
    # Runs 60 ms apart for 0.8 s, well inside the 1.5 s bound: the page is idle at most instants
    # a poll would sample, yet never for 300 ms, so the new spare has not started beside them.
    assert page.evaluate(FRAMES_WITH_A_QUIET_REFILL, [0.8, 60, "soon"]) == 1
    page.wait_for_function(TWO_FRAMES, timeout=60_000)  # then it boots
    context.close()


def test_warmup_refuses_an_unknown_refill_rule(browser: Browser, isolated_server: str) -> None:
    context, page = open_page(browser, isolated_server)
    error = page.evaluate(
        "() => wasmbox.Sandbox.warmup({ refill: 'later' }).then(() => null, (e) => e.message)"
    )
    assert error == 'warmup refill must be "soon" or "quiet"'
    context.close()


# Once the page keeps the plot-ready snapshot (its first spare preloads matplotlib and keeps the
# files when the page is quiet), a plot-ready spare is claimed by a session that runs busy Python
# for `seconds`; the page's frames are counted at each of `samples` seconds into that run.
FRAMES_DURING_A_PLOT_READY_SESSION = (
    "async ([seconds, samples]) => {"
    + KEEP_PLOT_SNAPSHOT
    + """
  const frames = () => document.querySelectorAll("iframe").length;
  await wasmbox.Sandbox.warmup();
  const code = "import time\\nstart = time.time()\\n" + samples.map((at) =>
    `while time.time() < start + ${at}: pass\\nprint('sample', flush=True)\\n`).join("") +
    `while time.time() < start + ${seconds}: pass\\n`;
  const counted = [];
  const sb = await wasmbox.Sandbox.create({ timeoutMs: 60000 });
  // At once: the page is idle between the claim and the run, and an idle page gets its spare.
  await sb.execute(code, { onStdout: (text) => text.includes("sample") && counted.push(frames()) });
  const booted = (await sb.environment()).snapshot;
  return { kept: true, booted, counted };
}"""
)


def test_a_plot_ready_refill_waits_longer_but_not_through_a_long_run(
    browser: Browser, isolated_server: str
) -> None:
    context, page = open_page(browser, isolated_server)
    outcome = page.evaluate(FRAMES_DURING_A_PLOT_READY_SESSION, [7.5, [2.5, 6.5]])
    assert outcome["kept"] is True and outcome["booted"] == "plot"
    # Past the 1.5 s a base spare waits: only the session's own frame; within 5 s, the next spare's.
    assert outcome["counted"] == [1, 2]
    context.close()
