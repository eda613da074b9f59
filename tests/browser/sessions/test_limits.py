"""Storage limits and sharing: a full quota is a clear error that loses nothing saved, and two tabs
never write one session."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, Page

from .conftest import create, flush, listed, load_sdk, open_sdk, plain, resume, run

pytestmark = pytest.mark.browser


def test_quota_error_is_reported_and_loses_nothing(
    context: BrowserContext, isolated_server: str
) -> None:
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    # Room for the runtime's cached files (about 40 MB, stored in the background) and a small save;
    # never for a file larger than the whole quota. The failing save does not depend on how much
    # the store holds yet, nor on when Chromium's usage figures catch up with it (a 40 MB file
    # beside the stored runtime still fitted once in CI).
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": isolated_server, "quotaSize": 60_000_000})
    load_sdk(page, isolated_server)
    sandbox_id = create(page)
    run(page, sandbox_id, "x = 'saved'\nopen('a.txt', 'w').write('first')")
    flush(page, sandbox_id)
    page.evaluate(
        """id => {
            window.failures = [];
            const record = (e) => failures.push(e.detail.error.name);
            wasmbox.Sandbox.get(id).addEventListener('savefailed', record);
        }""",
        sandbox_id,
    )
    run(
        page,
        sandbox_id,
        "x = 'too big'\nimport os\nopen('a.txt', 'wb').write(os.urandom(70_000_000))",
    )
    error = page.evaluate(
        "id => wasmbox.Sandbox.get(id).flush().then(() => null, e => [e.name, e.message, e.type])",
        sandbox_id,
    )
    assert error is not None and error[0] == "SessionStorageFull" and error[2] == "storage_full"
    assert "quota" in error[1] and "previous save is kept" in error[1]
    assert page.evaluate("failures") == ["SessionStorageFull"]
    # The sandbox itself is untouched, and the store still holds the last good save.
    assert plain(page, sandbox_id, "x") == "'too big'"
    page.evaluate("id => wasmbox.Sandbox.get(id).close()", sandbox_id)
    cdp.send("Storage.overrideQuotaForOrigin", {"origin": isolated_server})
    page.reload()
    load_sdk(page, isolated_server)
    resume(page, sandbox_id)
    assert plain(page, sandbox_id, "x, open('a.txt').read()") == "('saved', 'first')"


def test_a_second_tab_gets_a_clear_error(
    context: BrowserContext, page: Page, isolated_server: str
) -> None:
    sandbox_id = create(page)
    run(page, sandbox_id, "x = 41")
    flush(page, sandbox_id)
    other = open_sdk(context, isolated_server)
    assert listed(other)[sandbox_id]["persisted"] is True
    error = other.evaluate(
        "id => wasmbox.Sandbox.resume(id).then(() => null, e => [e.name, e.message, e.type])",
        sandbox_id,
    )
    assert error is not None and error[0] == "SessionLocked" and error[2] == "session_locked"
    assert "open in another tab" in error[1]
    assert (
        other.evaluate("id => wasmbox.Sandbox.delete(id).then(() => null, e => e.name)", sandbox_id)
        == "SessionLocked"
    )
    # Once the first tab lets go, the second one writes.
    page.evaluate("id => wasmbox.Sandbox.get(id).close()", sandbox_id)
    resume(other, sandbox_id)
    assert plain(other, sandbox_id, "x + 1") == "42"
