"""Persisted sessions in each engine WASMBOX_BROWSERS names (default Chromium): a page that closes
a session and at once resumes or deletes it takes its lock back. Firefox still reported a lock
just let go as taken, so `Sandbox.delete` of an open sandbox said the session was "open in
another tab or window" (W10 in `make bench-sandbox BROWSER=firefox`)."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.conftest import BOOT_TIMEOUT_MS, HAS_STORED, SDK_PAGE, open_sdk_page
from tests.support.engines import ENGINE_GAPS, EngineBrowser, lacks
from tests.support.engines.base import poll

pytestmark = pytest.mark.browser

CLOSE_THEN_REOPEN = """async () => {
  const sb = await wasmbox.Sandbox.create({ persist: true, timeoutMs: 120000 });
  await sb.execute("x = 41");
  await sb.close();
  const again = await wasmbox.Sandbox.resume(sb.id);
  const value = (await again.execute("x + 1")).value["text/plain"];
  await wasmbox.Sandbox.delete(again.id);
  return { value, listed: wasmbox.Sandbox.list().some((e) => e.id === sb.id) };
}"""


@pytest.fixture
def engine_server(engine: EngineBrowser, request: pytest.FixtureRequest) -> str:
    """Served with COOP/COEP, or plain where the engine cannot run isolated (WebKitGTK)."""
    isolated = (engine.name, "isolated") not in ENGINE_GAPS
    url: str = request.getfixturevalue("isolated_server" if isolated else "plain_server")
    return url


def test_a_closed_session_is_resumed_and_deleted_at_once(
    engine: EngineBrowser, engine_server: str
) -> None:
    page, _ = open_sdk_page(engine, engine_server)
    try:
        assert page.evaluate(CLOSE_THEN_REOPEN) == {"value": "42", "listed": False}
    finally:
        page.close()


# Resumed from the package snapshot: its side modules re-linked in this engine (its table may
# start one slot longer: CPython's count-args helper, sandbox/side-modules.ts).
PANDAS_SAVED = """async () => {
  const sb = await wasmbox.Sandbox.create({ persist: true, timeoutMs: 120000 });
  await sb.execute("import numpy as np, pandas as pd\\ndf = pd.DataFrame({'v': np.arange(4.0)})");
  await sb.close();
  return sb.id;
}"""
PANDAS_RESUME = """async (id) => {
  const again = await wasmbox.Sandbox.resume(id);
  const env = await again.environment();
  const value = (await again.execute("float(df.v.sum()), df.v.to_json()")).value["text/plain"];
  await again.close({ save: false });
  const log = env.log.filter((line) => line.includes("snapshot"));
  const marks = performance.getEntriesByType("mark").map((m) => m.name);
  const named = (prefix) =>
    marks.filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length));
  return {
    value, snapshot: env.snapshot, log,
    stored: named("wasmbox:stored "),
    readByPage: named("wasmbox:read stored "),
    readerFailed: named("wasmbox:store reader: "),
  };
}"""
# The package snapshot's files, which a later visit reads from the page's store. Firefox's page
# reads the two read whole itself from its folder (sdk/store-reader.ts); the bundle, whose side
# modules compile by parts, goes as a Blob.
SNAPSHOT_FILES = ["snapshot-pandas.bin", "snapshot-pandas.json", "snapshot-pandas-files.bin"]
READ_WHOLE = ["snapshot-pandas.bin", "snapshot-pandas.json"]
VALUE = '(6.0, \'{"0":0.0,"1":1.0,"2":2.0,"3":3.0}\')'


def test_a_pandas_session_resumes_from_the_package_snapshot(
    engine: EngineBrowser, engine_server: str
) -> None:
    """Where the engine cannot link them, the resume says why in the loader log and boots from
    the base snapshot: the same result. Where it can, a later visit's resume reads the files the
    page kept in its store, which reach the worker as unread Blobs, and boots from them too."""
    page, _ = open_sdk_page(engine, engine_server)
    try:
        sandbox_id = page.evaluate(PANDAS_SAVED)
        resumed = page.evaluate(PANDAS_RESUME, sandbox_id)
        assert resumed["value"] == VALUE
        if lacks(engine.name, "package-snapshot"):
            assert resumed["snapshot"] == "base"
            assert len(resumed["log"]) == 1
            assert resumed["log"][0].startswith(
                "booting without the package snapshot: Error: table of"
            )
            return
        assert resumed["snapshot"] == "packages" and resumed["log"] == []
        poll(page, HAS_STORED, SNAPSHOT_FILES, None)
        page.goto("about:blank")  # a new document (Firefox aborts a same-URL navigation)
        page.goto(f"{engine_server}{SDK_PAGE}")
        page.wait_for_function("window.sdkReady === true", timeout=BOOT_TIMEOUT_MS)
        later = page.evaluate(PANDAS_RESUME, sandbox_id)
        assert set(SNAPSHOT_FILES) <= set(later["stored"]), later
        assert later == {**later, "value": VALUE, "snapshot": "packages", "log": []}
        by_page = set(later["readByPage"]) & set(SNAPSHOT_FILES)
        expected = set(READ_WHOLE) if engine.name == "firefox" else set()
        assert by_page == expected, later["readerFailed"]
        page.evaluate("id => wasmbox.Sandbox.delete(id)", sandbox_id)
    finally:
        page.close()
