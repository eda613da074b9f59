"""A resumed session whose variables need only numpy, pandas and cloudpickle starts its worker from
the package snapshot (those packages already imported, their side modules re-linked), and works as
one that installed them: the DataFrame, lazily imported parts of pandas, new random numbers."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import create, flush, load_sdk, plain, resume, run

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
    sandbox_id = saved_and_reloaded(page, isolated_server, SETUP)
    assert {"df", "np", "pd"} <= set(resume(page, sandbox_id)["restored"])
    assert snapshot_of(page, sandbox_id) == "packages"

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


def test_random_numbers_differ_between_resumes(page: Page, isolated_server: str) -> None:
    """The snapshot froze numpy's and random's states; each worker reseeds them."""
    sandbox_id = saved_and_reloaded(page, isolated_server, SETUP)
    draws = []
    for _ in range(2):
        resume(page, sandbox_id)
        assert snapshot_of(page, sandbox_id) == "packages"
        draws.append(plain(page, sandbox_id, "import random; np.random.random(), random.random()"))
        page.evaluate("id => wasmbox.Sandbox.get(id).close({ save: false })", sandbox_id)
    assert draws[0] != draws[1]


def test_a_session_without_those_packages_boots_from_the_base_snapshot(
    page: Page, isolated_server: str
) -> None:
    sandbox_id = saved_and_reloaded(page, isolated_server, "x = 41")
    assert "x" in resume(page, sandbox_id)["restored"]
    assert snapshot_of(page, sandbox_id) == "base"
    assert plain(page, sandbox_id, "x + 1") == "42"
