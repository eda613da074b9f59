"""A persisted sandbox whose worker is killed gets its last save's variables back, and says so:
the next save never overwrites them with the new, empty interpreter's."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from .conftest import TIMEOUT_MS, create, flush, load_sdk, plain, resume, run

pytestmark = pytest.mark.browser

# A C loop ignores the interrupt: the watchdog has to kill the worker.
KILLED = "x = 99\nsum(range(10**11))"


def killed_run(page: Page, sandbox_id: str) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        "([id, code]) => wasmbox.Sandbox.get(id).execute(code, { timeoutMs: 1000 })",
        [sandbox_id, KILLED],
    )
    return result


def test_a_killed_run_restores_the_last_save(page: Page, isolated_server: str) -> None:
    sandbox_id = create(page)
    run(
        page,
        sandbox_id,
        "import numpy as np\nx = 41\narr = np.arange(3)\nopen('f.txt', 'w').write('a')",
    )
    flush(page, sandbox_id)

    result = killed_run(page, sandbox_id)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED" and result["stateLost"] is True
    restored = result["stateRestored"]
    assert {"x", "arr", "np"} <= set(restored["restored"]) and restored["notRestored"] == []
    assert restored["savedAt"] <= page.evaluate("Date.now()")
    # The variables from before the killed run (its own `x = 99` is gone), the files kept.
    assert (
        plain(page, sandbox_id, "x, arr.tolist(), open('f.txt').read()") == "(41, [0, 1, 2], 'a')"
    )

    # The save after the restart holds them too: a reload brings back the same.
    flush(page, sandbox_id)
    page.reload()
    load_sdk(page, isolated_server)
    assert {"x", "arr"} <= set(resume(page, sandbox_id)["restored"])
    assert plain(page, sandbox_id, "x, arr.tolist()") == "(41, [0, 1, 2])"


def test_a_sandbox_not_persisted_claims_no_restore(page: Page) -> None:
    """No save to go back to: the plain restart, and the result claims no restore."""
    sandbox_id = page.evaluate(
        "async () => (await wasmbox.Sandbox.create({ timeoutMs: 120000 })).id"
    )
    result = killed_run(page, sandbox_id)
    assert result["stateLost"] is True and "stateRestored" not in result
    assert plain(page, sandbox_id, "'x' in globals()") == "False"


# Crashes the worker for real once the run is over and the sandbox idle: a C-stack overflow in
# json's parser, from a timer (the Python policy is off so the cell can reach `js.setTimeout`).
CRASH_WHEN_IDLE = (
    "import js\nfrom pyodide.ffi import create_once_callable\n"
    "def crash():\n    import json\n    json.loads('[' * 100_000)\n"
    "js.setTimeout(create_once_callable(crash), 1500)"
)

WATCH_RESTARTS = """id => {
  window.restarts = [];
  wasmbox.Sandbox.get(id).addEventListener("restarted", (e) => restarts.push(e.detail));
}"""


def crash_while_idle(page: Page, sandbox_id: str) -> dict[str, Any]:
    """The `restarted` event's detail, once the lost idle worker has been replaced."""
    page.evaluate(WATCH_RESTARTS, sandbox_id)
    run(page, sandbox_id, CRASH_WHEN_IDLE)
    page.wait_for_function("() => window.restarts.length > 0", timeout=TIMEOUT_MS)
    detail: dict[str, Any] = page.evaluate("window.restarts[0]")
    return detail


def test_a_worker_lost_while_idle_says_so_on_the_next_result(page: Page) -> None:
    sandbox_id = create(page, policy="off")
    run(page, sandbox_id, "x = 41\ngen = (i for i in range(3))")
    flush(page, sandbox_id)

    detail = crash_while_idle(page, sandbox_id)
    assert "runtime" in detail["reason"] or "crashed" in detail["reason"], detail
    assert detail["stateRestored"]["whileIdle"] is True
    assert "x" in detail["stateRestored"]["restored"]

    result = run(page, sandbox_id, "x + 1")
    assert result["value"]["text/plain"] == "42"
    assert result["stateLost"] is True
    restored = result["stateRestored"]
    assert restored["whileIdle"] is True and restored["reason"] == detail["reason"]
    assert "x" in restored["restored"]
    # Named, never dropped: the generator, and `js` (a proxy of the JS global scope, not a module).
    assert "gen" in [v["name"] for v in restored["notRestored"]]
    assert restored["notRestored"] == detail["stateRestored"]["notRestored"]
    # Said once: the run after it is an ordinary one.
    after = run(page, sandbox_id, "x")
    assert after["stateLost"] is False and "stateRestored" not in after


def test_a_worker_lost_while_idle_without_a_save_says_the_variables_are_gone(
    page: Page,
) -> None:
    sandbox_id = page.evaluate(
        "async () => (await wasmbox.Sandbox.create({ timeoutMs: 120000, policy: 'off' })).id"
    )
    run(page, sandbox_id, "x = 41")
    detail = crash_while_idle(page, sandbox_id)
    assert detail["stateRestored"] is None
    result = run(page, sandbox_id, "globals().get('x')")
    assert result["stateLost"] is True and "stateRestored" not in result
    assert result["value"] is None
