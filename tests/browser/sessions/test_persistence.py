"""A persisted sandbox survives a reload, a browser restart and a kill mid-save, expires after its
TTL, and forks into an independent copy."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page, Playwright

from tests.support.browser import launch_args

from .conftest import TIMEOUT_MS, create, flush, listed, load_sdk, plain, resume, run

pytestmark = pytest.mark.browser

SETUP = (
    "import numpy as np, pandas as pd\n"
    "arr = np.arange(12).reshape(3, 4)\n"
    "df = pd.DataFrame({'city': ['Oslo', 'Lima', 'Pune'], 'temp': [3.5, 19.0, 27.25]})\n"
    "with open('notes.txt', 'w') as f:\n    f.write('kept')\n"
)
CHECK = "int(arr.sum()), float(df['temp'].sum()), list(df['city']), open('notes.txt').read()"
EXPECTED = "(66, 49.75, ['Oslo', 'Lima', 'Pune'], 'kept')"


def test_reload_keeps_variables_files_and_history(page: Page, isolated_server: str) -> None:
    sandbox_id = create(page, title="weather")
    run(page, sandbox_id, SETUP)
    page.evaluate(
        "id => wasmbox.Sandbox.get(id).writeFile('data/raw.csv', 'a,b\\n1,2\\n')", sandbox_id
    )
    flush(page, sandbox_id)
    page.reload()
    load_sdk(page, isolated_server)
    entry = listed(page)[sandbox_id]
    assert entry["persisted"] is True and entry["state"] == "closed"
    assert entry["title"] == "weather" and entry["bytes"] > 0
    assert entry["expiresAt"] > entry["lastUsedAt"] >= entry["createdAt"]
    report = resume(page, sandbox_id)
    assert {"arr", "df", "np", "pd"} <= set(report["restored"])
    # `with open(...) as f` leaves a closed file object: named, not silently dropped.
    assert report["notRestored"] == [
        {"name": "f", "reason": "a closed file object is not saved: open it again"}
    ]
    assert report["files"] == ["data/raw.csv", "notes.txt"]
    assert plain(page, sandbox_id, CHECK) == EXPECTED
    raw = page.evaluate(
        """async id => new TextDecoder().decode(
            await wasmbox.Sandbox.get(id).readFile('data/raw.csv'))""",
        sandbox_id,
    )
    assert raw == "a,b\n1,2\n"
    history = page.evaluate("id => wasmbox.Sandbox.get(id).history.map(h => h.code)", sandbox_id)
    assert history[0] == SETUP and history[-1] == CHECK


def test_browser_restart_keeps_the_session(
    playwright: Playwright, isolated_server: str, tmp_path
) -> None:
    def launch() -> BrowserContext:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), **launch_args()
        )
        context.set_default_timeout(TIMEOUT_MS)
        return context

    first = launch()
    page = first.new_page()
    load_sdk(page, isolated_server)
    sandbox_id = create(page)
    run(page, sandbox_id, SETUP)
    flush(page, sandbox_id)
    first.close()

    second = launch()
    try:
        page = second.new_page()
        load_sdk(page, isolated_server)
        assert sandbox_id in listed(page)
        resume(page, sandbox_id)
        assert plain(page, sandbox_id, CHECK) == EXPECTED
    finally:
        second.close()


def test_a_kill_during_a_save_keeps_a_whole_state(
    context: BrowserContext, page: Page, isolated_server: str
) -> None:
    sandbox_id = create(page)
    run(page, sandbox_id, "gen = 1\nopen('gen.txt', 'w').write('1')")
    flush(page, sandbox_id)
    # A large save under way when the tab goes: its transaction never commits.
    run(page, sandbox_id, "big = bytes(40_000_000)\ngen = 2\nopen('gen.txt', 'w').write('2')")
    page.close()
    again = context.new_page()
    load_sdk(again, isolated_server)
    resume(again, sandbox_id)
    # The variables and the files come from one save, whichever it was.
    pair = plain(again, sandbox_id, "gen, int(open('gen.txt').read()), 'big' in globals()")
    assert pair in ("(1, 1, False)", "(2, 2, True)")


# Whether the page's session store holds a record for this id (read past the SDK).
STORED = """id => new Promise((resolve, reject) => {
  const open = indexedDB.open("wasmbox-sessions");
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    const get = db.transaction("sessions").objectStore("sessions").get(id);
    get.onsuccess = () => (db.close(), resolve(get.result !== undefined));
    get.onerror = () => reject(get.error);
  };
})"""


def test_ttl_expiry_removes_the_session(page: Page, isolated_server: str) -> None:
    sandbox_id = create(page, persist={"ttlDays": 1 / 86_400})  # one second
    run(page, sandbox_id, "x = 1")
    flush(page, sandbox_id)
    page.evaluate("id => wasmbox.Sandbox.get(id).close()", sandbox_id)
    page.wait_for_timeout(1_500)
    page.reload()
    load_sdk(page, isolated_server)
    # Importing the SDK reads no storage: the expired session goes once the page reads its sessions
    # (the first list starts that read; loadSaved() waits for it). Expired, it is never listed.
    assert page.evaluate(STORED, sandbox_id) is True
    assert sandbox_id not in listed(page)
    page.evaluate("wasmbox.Sandbox.loadSaved()")
    assert page.evaluate(STORED, sandbox_id) is False
    error = page.evaluate(
        """id => wasmbox.Sandbox.resume(id).then(() => null,
             e => [e.name, e.type, e instanceof wasmbox.SandboxError])""",
        sandbox_id,
    )
    assert error == ["SessionNotFound", "session_not_found", True]


def test_a_persisted_sandbox_is_listed_as_persisted_before_its_first_save(page: Page) -> None:
    """Listed at once (the first save needs a round trip to the worker, then a write)."""
    entry, saved = page.evaluate(
        """async () => {
          const sb = await wasmbox.Sandbox.create({ persist: true, title: "t", timeoutMs: 120000 });
          const entry = wasmbox.Sandbox.list().find((e) => e.id === sb.id);
          await sb.flush();
          return [entry, wasmbox.Sandbox.list().find((e) => e.id === sb.id)];
        }"""
    )
    assert entry["persisted"] is True and entry["title"] == "t" and entry["runs"] == 0
    assert entry["expiresAt"] > entry["createdAt"]
    assert saved["persisted"] is True and saved["bytes"] > 0


def test_fork_is_independent_of_its_origin(page: Page) -> None:
    origin = create(page, title="origin")
    run(page, origin, "items = [1]\nopen('a.txt', 'w').write('a')")
    fork = page.evaluate("async id => (await wasmbox.Sandbox.get(id).fork()).id", origin)
    assert fork != origin
    run(page, fork, "items.append(2)\nopen('b.txt', 'w').write('b')")
    run(page, origin, "items.append(3)")
    assert plain(page, fork, "items") == "[1, 2]"
    assert plain(page, origin, "items") == "[1, 3]"
    assert plain(page, origin, "import os; sorted(os.listdir('.'))") == "['a.txt']"
    entries = listed(page)
    assert entries[fork]["persisted"] is True and entries[fork]["title"] == "origin (fork)"


def test_delete_removes_everything(page: Page, isolated_server: str) -> None:
    sandbox_id = create(page)
    run(page, sandbox_id, "x = 1")
    flush(page, sandbox_id)
    page.evaluate("id => wasmbox.Sandbox.delete(id)", sandbox_id)
    assert sandbox_id not in listed(page)
    page.reload()
    load_sdk(page, isolated_server)
    assert sandbox_id not in listed(page)


def test_environment_reports_storage(page: Page) -> None:
    sandbox_id = create(page)
    storage = page.evaluate(
        "async id => (await wasmbox.Sandbox.get(id).environment()).storage", sandbox_id
    )
    assert storage["quota"] > 0 and storage["usage"] >= 0
    assert isinstance(storage["persisted"], bool)


def test_saves_without_a_run_keep_the_variables_record(page: Page, isolated_server: str) -> None:
    """A file write and a rename straight after a run save no variables of their own: the
    record still names the run's (and the packages they need) when they are read back."""
    sandbox_id = create(page)
    page.evaluate(
        """async id => {
          const sb = wasmbox.Sandbox.get(id);
          await sb.execute("import pandas as pd\\ndf = pd.DataFrame({'a': [1, 2]})");
          await sb.writeFile("x.txt", "x");
          await sb.rename("t");
          await sb.flush();
        }""",
        sandbox_id,
    )
    page.reload()
    load_sdk(page, isolated_server)
    assert "df" in resume(page, sandbox_id)["restored"]
    assert plain(page, sandbox_id, "int(df['a'].sum()), open('x.txt').read()") == "(3, 'x')"


def test_app_data_is_saved_without_waiting_for_a_run(page: Page, isolated_server: str) -> None:
    """New app data is written while a run still holds the worker (no capture from the worker
    needed), and the record it writes stays whole: it holds the runs saved so far."""
    sandbox_id = create(page)
    order = page.evaluate(
        """async id => {
          const sb = wasmbox.Sandbox.get(id);
          await sb.execute("x = 1");
          await sb.flush();
          const order = [];
          const code = "import time\\ntime.sleep(4)\\nx = 2";
          const running = sb.execute(code).then(() => order.push("run"));
          await new Promise((ok) => setTimeout(ok, 500));
          sb.setAppData({ note: "while running" });
          await sb.flush();
          order.push("saved");
          await running;
          // The run's own save (its variables and history) follows it in the background.
          await sb.flush();
          return order;
        }""",
        sandbox_id,
    )
    assert order == ["saved", "run"]
    page.reload()
    load_sdk(page, isolated_server)
    resume(page, sandbox_id)
    sb = f"wasmbox.Sandbox.get({sandbox_id!r})"
    assert page.evaluate(f"{sb}.appData") == {"note": "while running"}
    assert page.evaluate(f"{sb}.history.length") == 2
    assert plain(page, sandbox_id, "x") == "2"


def test_rename_of_a_sandbox_not_persisted_is_a_typed_error(page: Page) -> None:
    error = page.evaluate(
        """async () => {
          const sb = await wasmbox.Sandbox.create();
          const e = await sb.rename("t").then(() => null, (e) => e);
          await sb.close();
          return e && [e.name, e.type, e instanceof wasmbox.SandboxError, e.message];
        }"""
    )
    assert error == ["SandboxError", "not_persisted", True, "only a persisted sandbox has a title"]
