"""A resume whose variables need only packages the page's spare has already imported goes into that
spare (no package snapshot boot, whose side modules' compile is Firefox's long pole); one that needs
more gets a worker of its own from the package snapshot, and the spare stays a spare."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import load_sdk, plain, resume
from .test_package_snapshot import SETUP, saved_and_reloaded, snapshot_of

pytestmark = pytest.mark.browser

# Until the page's workers have said `n` times which packages they hold (protocol: `preloaded`).
WAIT_PRELOADED = """async (n) => {
  while (performance.getEntriesByName("wasmbox:worker:preloaded").length < n)
    await new Promise((resolve) => setTimeout(resolve, 100));
}"""
INTO_SPARE = '() => performance.getEntriesByName("wasmbox:spare-claimed-with-packages").length'


def test_a_resume_goes_into_the_spare_only_when_it_holds_every_package(
    page: Page, isolated_server: str
) -> None:
    sandbox_id = saved_and_reloaded(page, isolated_server, SETUP + "\nsecret = 'mine'")
    # A spare that imported numpy only: the pandas session does not fit, the spare stays unclaimed.
    page.evaluate('wasmbox.Sandbox.warmup({ packages: ["numpy"] })')
    page.evaluate(WAIT_PRELOADED, 1)
    resume(page, sandbox_id)
    assert page.evaluate(INTO_SPARE) == 0
    assert snapshot_of(page, sandbox_id) == "packages"
    # That spare, still unclaimed, goes to the next new sandbox, which sees none of the session.
    other: str = page.evaluate("async () => (await wasmbox.Sandbox.create()).id")
    assert plain(page, other, "'secret' in globals(), 'df' in globals()") == "(False, False)"
    assert plain(page, other, "import os; sorted(os.listdir('.'))") == "[]"
    page.evaluate("id => wasmbox.Sandbox.get(id).close({ save: false })", sandbox_id)

    # After a reload, a spare that imported numpy and pandas: the resume goes into it, and the
    # session is whole there (variables, files, pandas code the spare's preload never ran).
    page.reload()
    load_sdk(page, isolated_server)
    page.evaluate('wasmbox.Sandbox.warmup({ packages: ["numpy", "pandas"] })')
    page.evaluate(WAIT_PRELOADED, 2)
    assert {"df", "np", "pd", "secret"} <= set(resume(page, sandbox_id)["restored"])
    assert page.evaluate(INTO_SPARE) == 1
    assert snapshot_of(page, sandbox_id) == "base"
    assert plain(page, sandbox_id, "df.groupby('k').v.sum().to_dict()") == "{'a': 2.0, 'b': 1.0}"
    assert plain(page, sandbox_id, "open('notes.txt').read(), secret") == "('kept', 'mine')"
    csv = "import io; pd.read_csv(io.StringIO('x,y\\n1,2\\n')).to_json()"
    assert plain(page, sandbox_id, csv) == '\'{"x":{"0":1},"y":{"0":2}}\''
