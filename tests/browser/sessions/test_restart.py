"""A persisted sandbox whose worker is killed gets its last save's variables back, and says so:
the next save never overwrites them with the new, empty interpreter's."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from .conftest import create, flush, load_sdk, plain, resume, run

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
