"""Spares boot from the plot-ready snapshot (builder/package_snapshot.py: PLOT_SNAPSHOT) once the
page keeps its files: matplotlib imported with the sandbox's backend and a first figure drawn, so
a session created at once plots without waiting for the idle preload. The page's first spare
boots as before and keeps the files in the background once it is quiet."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.sandbox.conftest import app_with_page_headers, open_sdk_page
from tests.browser.sandbox.plot_ready import KEEP_PLOT_SNAPSHOT
from tests.support.engines import ENGINE_GAPS, EngineBrowser, lacks
from tests.support.servers import running

pytestmark = pytest.mark.browser


@pytest.fixture
def server(engine: EngineBrowser, runtime_built: None) -> Iterator[str]:
    """Cross-origin isolated where the engine can run so (WebKitGTK cannot: served plain)."""
    with running(app_with_page_headers((engine.name, "isolated") not in ENGINE_GAPS)) as url:
        yield url


def on_a_new_page(engine: EngineBrowser, server: str, script: str, arg: object = None) -> Any:
    """What `script` returns on a new SDK page; skipped where no package snapshot links."""
    if lacks(engine.name, "package-snapshot"):
        pytest.skip("this engine cannot link a package snapshot: its spares boot from the base one")
    page, _ = open_sdk_page(engine, server)
    try:
        return page.evaluate(script, arg)
    finally:
        page.close()


# The first spare boots from the base snapshot and, once the page is quiet, preloads matplotlib
# and keeps the plot-ready snapshot's files; the next spares boot from it. Two sessions on such
# spares: each worker reseeds `random` and numpy's global generator, which the snapshot froze.
TWO_PLOT_SESSIONS = (
    """async () => {
  await wasmbox.Sandbox.warmup();
  const first = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
  const firstBooted = (await first.environment()).snapshot;
  await first.close();"""
    + KEEP_PLOT_SNAPSHOT
    + """
  // What the worker holds before the session's first import, and one draw from each generator.
  const check =
    "import json, sys, random\\n" +
    "mpl = sys.modules.get('matplotlib'); plt = sys.modules.get('matplotlib.pyplot')\\n" +
    "state = [mpl.get_backend(), plt.get_fignums()] if plt else None\\n" +
    "import numpy as np\\n" +
    "json.dumps([state, random.random(), float(np.random.random())])";
  const sessions = [];
  for (let i = 0; i < 2; i++) {
    await wasmbox.Sandbox.warmup();
    const sb = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
    const env = await sb.environment();
    const text = (await sb.execute(check)).value["text/plain"];
    const [held, draw, npDraw] = JSON.parse(text.slice(1, -1)); // the repr of a JSON string
    const plot = await sb.execute(
      "import matplotlib.pyplot as plt\\nplt.plot([1, 2, 3], [3, 1, 2]); plt.title('ok')",
    );
    const shown = plot.displays.map((d) => d.mime);
    const { snapshot, log } = env;
    sessions.push({ snapshot, log, held, draw, npDraw, shown, error: plot.error });
    await sb.close();
  }
  wasmbox.Sandbox.cooldown();
  return { kept: true, firstBooted, sessions };
}"""
)


def test_spares_boot_plot_ready_once_the_page_keeps_the_snapshot(
    engine: EngineBrowser, server: str
) -> None:
    outcome = on_a_new_page(engine, server, TWO_PLOT_SESSIONS)
    assert outcome["kept"] is True
    assert outcome["firstBooted"] == "base"  # a first visit boots as before
    sessions = outcome["sessions"]
    for session in sessions:
        assert session["shown"] == ["image/png"] and session["error"] is None
    # Each worker reseeded the generators the snapshot froze.
    assert sessions[0]["draw"] != sessions[1]["draw"]
    assert sessions[0]["npDraw"] != sessions[1]["npDraw"]
    for session in sessions:
        assert session["snapshot"] == "plot", session["log"]
        # Imported with the sandbox's backend, the snapshot's warm-up figure closed.
        assert session["held"] == ["module://wasmbox_kernel.mpl_backend", []]


# Once a plot-ready spare waits, a session with a small memoryBudgetBytes boots its own worker
# from the base snapshot (the spare holds tens of MB of matplotlib), and the spare stays for the
# next session, which has the default budget. The small one's code gets the room it would get on
# a device that never kept the snapshot.
SMALL_BUDGET_THEN_DEFAULT = (
    "async (budget) => {"
    + KEEP_PLOT_SNAPSHOT
    + """
  await wasmbox.Sandbox.warmup();
  const small = await wasmbox.Sandbox.create({ memoryBudgetBytes: budget, timeoutMs: 120000 });
  const smallBooted = (await small.environment()).snapshot;
  const grown = await small.execute("x = bytearray(50_000_000); len(x)");
  const roomy = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
  const roomyBooted = (await roomy.environment()).snapshot;
  await small.close();
  await roomy.close();
  wasmbox.Sandbox.cooldown();
  return { kept: true, smallBooted, grown: grown.outcome, roomyBooted };
}"""
)


def test_a_small_memory_budget_leaves_the_plot_ready_spare_to_the_next_session(
    engine: EngineBrowser, server: str
) -> None:
    outcome = on_a_new_page(engine, server, SMALL_BUDGET_THEN_DEFAULT, 100_000_000)
    assert outcome == {
        "kept": True,
        "smallBooted": "base",
        "grown": "OUTCOME_OK",
        "roomyBooted": "plot",
    }


# A plot-ready spare that rehearsed before its claim has drawn the snapshot's warm-up figure
# once more (its font loaded, which the snapshot had released) and closed it: a session finds
# no figure, its first figure is number 1, and it plots.
AFTER_A_REHEARSAL = (
    "async () => {"
    + KEEP_PLOT_SNAPSHOT
    + """
  const rehearsals = () => performance.getEntriesByName("wasmbox:spare-rehearsed").length;
  const before = rehearsals();
  await wasmbox.Sandbox.warmup();
  while (rehearsals() === before) await sleep(50);
  const sb = await wasmbox.Sandbox.create({ timeoutMs: 120000 });
  const env = await sb.environment();
  const check =
    "import json, sys\\n" +
    "fm = sys.modules['matplotlib.font_manager']; plt = sys.modules['matplotlib.pyplot']\\n" +
    "held = [fm._get_font.cache_info().currsize > 0, plt.get_fignums()]\\n" +
    "json.dumps(held + [plt.figure().number])";
  const held = JSON.parse((await sb.execute(check)).value["text/plain"].slice(1, -1));
  const plot = await sb.execute("plt.close('all')\\nplt.plot([1, 2, 3]); plt.title('ok')");
  await sb.close();
  wasmbox.Sandbox.cooldown();
  const shown = plot.displays.map((d) => d.mime);
  return { kept: true, snapshot: env.snapshot, log: env.log, held, shown };
}"""
)


def test_a_rehearsed_plot_ready_spare_has_warmed_its_figure_path(
    engine: EngineBrowser, server: str
) -> None:
    outcome = on_a_new_page(engine, server, AFTER_A_REHEARSAL)
    assert outcome["kept"] is True and outcome["snapshot"] == "plot", outcome
    assert not any("warming" in line for line in outcome["log"]), outcome["log"]
    assert outcome["held"] == [True, [], 1]
    assert outcome["shown"] == ["image/png"]
