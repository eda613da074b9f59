"""A resumed session whose variables need only numpy, pandas and cloudpickle starts its worker from
the package snapshot (those packages already imported, their side modules re-linked), and works as
one that installed them: the DataFrame, lazily imported parts of pandas, its random generators."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page, Route

from backend.settings import Settings, get_settings
from tests.browser.sandbox.conftest import HAS_STORED, app_with_page_headers
from tests.support.engines.base import poll
from tests.support.servers import running
from wasm_runtime.paths import RUNTIME_DIR

from .conftest import create, flush, load_sdk, open_sdk, plain, resume, run

# The package snapshot, its link record and its files bundle (the manifest's packageSnapshot).
SNAPSHOT_FILES = ["snapshot-pandas.bin", "snapshot-pandas.json", "snapshot-pandas-files.bin"]
# The files this page's sandboxes read from its store (`wasmbox:stored <file>` marks).
READ_FROM_STORE = """() => performance.getEntriesByType("mark")
  .map((m) => m.name).filter((n) => n.startsWith("wasmbox:stored ")).map((n) => n.slice(15))"""

pytestmark = pytest.mark.browser

SETUP = (
    "import numpy as np, pandas as pd\n"
    "df = pd.DataFrame({'k': ['a', 'b', 'a'], 'v': np.arange(3.0)})\n"
    "open('notes.txt', 'w').write('kept')"
)


def snapshot_of(page: Page, sandbox_id: str) -> str:
    booted: str = page.evaluate(
        "async id => (await wasmbox.Sandbox.get(id).environment()).snapshot", sandbox_id
    )
    return booted


def saved_and_reloaded(page: Page, server: str, setup: str) -> str:
    sandbox_id = create(page)
    run(page, sandbox_id, setup)
    flush(page, sandbox_id)
    page.reload()
    load_sdk(page, server)
    return sandbox_id


def test_a_pandas_session_resumes_from_the_package_snapshot(
    page: Page, isolated_server: str
) -> None:
    """It works as a session that installed the packages, and a seeded one draws the numbers it
    would have: the snapshot froze numpy's and random's states and each worker reseeds them, then
    the session's own saved states come back. (One session for both: each costs a pandas run, a
    save and a resume.)"""
    seeded = SETUP + "\nimport random\nrandom.seed(3); np.random.seed(3)"
    sandbox_id = saved_and_reloaded(page, isolated_server, seeded)
    assert {"df", "np", "pd"} <= set(resume(page, sandbox_id)["restored"])
    assert snapshot_of(page, sandbox_id) == "packages"
    draws = "random.random(), float(np.random.random())"
    expected = "random.Random(3).random(), float(np.random.RandomState(3).random())"
    assert plain(page, sandbox_id, draws) == plain(page, sandbox_id, expected)

    assert plain(page, sandbox_id, "df.groupby('k').v.sum().to_dict()") == "{'a': 2.0, 'b': 1.0}"
    assert plain(page, sandbox_id, "open('notes.txt').read()") == "'kept'"
    # Code the snapshot never ran: numpy's linear algebra and FFT, pandas' CSV and JSON writers,
    # a pandas extension module dlopened only now, and the installed packages' metadata.
    checks = (
        "import io, importlib.metadata\n"
        "import pandas._libs.byteswap\n"
        "inv = np.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]])).tolist()\n"
        "fft = np.round(np.fft.fft([1, 0, 0, 0]).real, 6).tolist()\n"
        "csv = pd.read_csv(io.StringIO('x,y\\n1,2\\n')).to_json()\n"
        "inv, fft, csv, importlib.metadata.version('pandas')"
    )
    assert plain(page, sandbox_id, checks) == (
        "([[0.5, 0.0], [0.0, 0.25]], [1.0, 1.0, 1.0, 1.0], "
        '\'{"x":{"0":1},"y":{"0":2}}\', \'2.2.3\')'
    )


def test_a_saved_pandas_session_keeps_the_package_snapshot_for_the_next_visit(
    page: Page, isolated_server: str
) -> None:
    """Its next worker starts from the package snapshot, usually on a later visit, when the page
    has never read those 125 MB: the page keeps them in its store once idle, so that the resume
    reads them from there, not from the network."""
    sandbox_id = create(page)
    run(page, sandbox_id, SETUP)
    flush(page, sandbox_id)
    poll(page, HAS_STORED, SNAPSHOT_FILES, None)
    page.reload()
    load_sdk(page, isolated_server)
    resume(page, sandbox_id)
    assert snapshot_of(page, sandbox_id) == "packages"
    assert set(SNAPSHOT_FILES) <= set(page.evaluate(READ_FROM_STORE))


def test_a_package_snapshot_file_altered_in_transit_is_not_kept(
    context: BrowserContext, isolated_server: str
) -> None:
    def altered(route: Route) -> None:  # valid JSON, other bytes: a hash the manifest does not have
        route.fulfill(status=200, content_type="application/json", body=route.fetch().body() + b" ")

    context.route("**/runtime/snapshot-pandas.json", altered)
    page = open_sdk(context, isolated_server)
    sandbox_id = create(page)
    run(page, sandbox_id, SETUP)
    flush(page, sandbox_id)
    kept = [name for name in SNAPSHOT_FILES if name != "snapshot-pandas.json"]
    poll(page, HAS_STORED, kept, None)  # the record's turn came before the bundle's
    assert not page.evaluate(HAS_STORED, ["snapshot-pandas.json"])


def test_a_session_without_those_packages_boots_from_the_base_snapshot(
    page: Page, isolated_server: str
) -> None:
    sandbox_id = saved_and_reloaded(page, isolated_server, "x = 41")
    assert "x" in resume(page, sandbox_id)["restored"]
    assert snapshot_of(page, sandbox_id) == "base"
    assert plain(page, sandbox_id, "x + 1") == "42"


@pytest.fixture(scope="module")
def mislinking_server(
    tmp_path_factory: pytest.TempPathFactory, runtime_built: None
) -> Iterator[str]:
    """The runtime with a link record that expects one table slot more than linking makes (its
    manifest entry updated to match, so the page accepts it): every side module links, then the
    final check fails."""
    runtime = tmp_path_factory.mktemp("mislinking-runtime")
    for path in RUNTIME_DIR.iterdir():
        if path.name.startswith(("manifest.json", "snapshot-pandas.json")):
            continue  # rewritten below, without compressed siblings the server would prefer
        os.link(path, runtime / path.name)
    record = json.loads((RUNTIME_DIR / "snapshot-pandas.json").read_text())
    record["table"]["after"] += 1
    data = json.dumps(record).encode()
    (runtime / "snapshot-pandas.json").write_bytes(data)
    manifest = json.loads((RUNTIME_DIR / "manifest.json").read_text())
    manifest["files"]["snapshot-pandas.json"] = {
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
    }
    (runtime / "manifest.json").write_text(json.dumps(manifest))
    app = app_with_page_headers(True)
    settings = Settings(cross_origin_isolation=True, runtime_dir=runtime)
    app.dependency_overrides[get_settings] = lambda: settings
    with running(app) as url:
        yield url


def test_a_snapshot_that_does_not_link_falls_back_to_the_base_one(
    context: BrowserContext, mislinking_server: str
) -> None:
    """Never a half-linked interpreter: a new one boots from the base snapshot, and says why."""
    page = open_sdk(context, mislinking_server)
    sandbox_id = saved_and_reloaded(page, mislinking_server, SETUP)
    assert {"df", "np", "pd"} <= set(resume(page, sandbox_id)["restored"])
    environment = page.evaluate(
        "async id => await wasmbox.Sandbox.get(id).environment()", sandbox_id
    )
    assert environment["snapshot"] == "base"
    assert [line for line in environment["log"] if "package snapshot" in line] == [
        "booting without the package snapshot: Error: table length 25555 after linking, "
        "recorded 25556"
    ]
    assert plain(page, sandbox_id, "df.groupby('k').v.sum().to_dict()") == "{'a': 2.0, 'b': 1.0}"


def test_a_fork_of_a_pandas_session_starts_from_the_package_snapshot(page: Page) -> None:
    sandbox_id = create(page)
    run(page, sandbox_id, SETUP)
    fork_id = page.evaluate("async id => (await wasmbox.Sandbox.get(id).fork()).id", sandbox_id)
    assert snapshot_of(page, fork_id) == "packages"
    run(page, fork_id, "df['v'] = df.v * 10")
    assert plain(page, fork_id, "df.v.tolist()") == "[0.0, 10.0, 20.0]"
    assert plain(page, sandbox_id, "df.v.tolist()") == "[0.0, 1.0, 2.0]"
