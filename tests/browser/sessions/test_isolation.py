"""Hostile code in a persisted sandbox cannot reach the host page's `wasmbox-sessions` database:
the worker's origin is opaque, so IndexedDB there is refused (or, in an engine that allowed it,
would be another, empty store), and another session's saved data never reaches it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import create, flush, listed, plain, resume, run

pytestmark = pytest.mark.browser

SECRET = "victim-secret-4417"

# Each attempt prints "<name> refused <error>" or what it saw; the policy is off, so only the
# browser stands in the way.
PROBE = """
import js
from pyodide.ffi import create_proxy
import asyncio

async def open_sessions():
    request = js.indexedDB.open("wasmbox-sessions")
    done = asyncio.get_running_loop().create_future()
    request.onsuccess = create_proxy(lambda e: done.set_result(request.result))
    request.onerror = create_proxy(lambda e: done.set_exception(RuntimeError("open failed")))
    db = await asyncio.wait_for(done, 10)
    return "stores=" + ",".join(str(name) for name in db.objectStoreNames)

async def databases():
    return ",".join(str(d.name) for d in await js.indexedDB.databases())

async def opfs():
    root = await js.navigator.storage.getDirectory()
    return "opfs=" + str(root.name)

for name, attempt in (("open", open_sessions), ("databases", databases), ("opfs", opfs)):
    try:
        print(name, "saw", await attempt())
    except Exception as error:
        print(name, "refused", type(error).__name__, str(error)[:160])
"""


def test_the_sandbox_cannot_reach_the_sessions_database(page: Page) -> None:
    victim = create(page, title="victim")
    run(page, victim, f"secret = {SECRET!r}\nopen('secret.txt', 'w').write(secret)")
    flush(page, victim)
    page.evaluate("id => wasmbox.Sandbox.get(id).close()", victim)
    before = listed(page)[victim]

    attacker = create(page, policy="off")
    result = run(page, attacker, PROBE)
    lines = dict(line.split(" ", 1) for line in result["stdout"].strip().splitlines())
    assert set(lines) == {"open", "databases", "opfs"}, result["stdout"]
    # Chromium denies storage to an opaque origin; anything else must at least be empty.
    assert lines["open"].startswith("refused") or lines["open"] == "saw stores=", lines
    assert lines["databases"].startswith("refused") or "wasmbox-sessions" not in lines["databases"]
    assert SECRET not in str(result)
    # Nothing of the victim's is in the attacker's interpreter or files.
    assert plain(page, attacker, "'secret' in globals(), __import__('os').listdir('.')") == (
        "(False, [])"
    )

    # The host's store is as it was: the victim resumes whole.
    assert listed(page)[victim]["bytes"] == before["bytes"]
    resume(page, victim)
    assert plain(page, victim, "secret, open('secret.txt').read()") == f"({SECRET!r}, {SECRET!r})"
