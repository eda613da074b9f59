"""The offline runtime, proven in headless Chromium: Pyodide boots from /runtime/ in a worker,
the data-science packages import and compute, and no request leaves for any other host."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.support.network import RequestLog, watch_requests

pytestmark = pytest.mark.browser

BOOT_TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def booted(browser, app_server: str) -> Iterator[tuple[Page, RequestLog]]:
    context: BrowserContext = browser.new_context()
    log = watch_requests(context, app_server)
    page = context.new_page()
    page.goto(f"{app_server}/test-pages/runtime-boot.html")
    page.evaluate("window.ready")
    yield page, log
    context.close()


def run(page: Page, code: str) -> object:
    return page.evaluate("code => window.runPython(code)", code)


def test_boots_pyodide_0_27_7(booted: tuple[Page, RequestLog]) -> None:
    page, _ = booted
    assert run(page, "import sys; sys.version.split()[0]") == "3.12.7"
    assert run(page, "import pyodide; pyodide.__version__") == "0.27.7"


COMPUTATIONS = [
    pytest.param(
        "import numpy as np; int(np.arange(1, 101, dtype=np.int64).sum())", 5050, id="numpy"
    ),
    pytest.param(
        "import pandas as pd\n"
        "df = pd.DataFrame({'day': [1, 2, 3], 'revenue': [12400, 9800, 15200]})\n"
        "int(df.revenue.sum())",
        37400,
        id="pandas",
    ),
    pytest.param(
        "import io, matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(); ax.plot([1, 2, 3]); buf = io.BytesIO()\n"
        "fig.savefig(buf, format='png'); buf.getvalue()[:8] == b'\\x89PNG\\r\\n\\x1a\\n'",
        True,
        id="matplotlib",
    ),
    pytest.param(
        "from scipy import integrate; round(integrate.quad(lambda x: x * x, 0, 3)[0], 9)",
        9.0,
        id="scipy",
    ),
    pytest.param(
        "from sklearn.linear_model import LinearRegression\n"
        "m = LinearRegression().fit([[0], [1], [2], [3]], [1, 3, 5, 7])\n"
        "[round(float(m.coef_[0]), 6), round(float(m.intercept_), 6)]",
        [2.0, 1.0],
        id="scikit-learn",
    ),
    pytest.param("from sympy import primerange; int(sum(primerange(100)))", 1060, id="sympy"),
    pytest.param(
        "import networkx as nx; nx.shortest_path_length(nx.path_graph(5), 0, 4)", 4, id="networkx"
    ),
    pytest.param("import pyarrow as pa; pa.array([1, 2, 3]).to_pylist()", [1, 2, 3], id="pyarrow"),
    pytest.param(
        "import sqlite3; c = sqlite3.connect(':memory:')\n"
        "c.execute('create table t(x)'); c.executemany('insert into t values (?)', [(2,), (3,)])\n"
        "c.execute('select sum(x) from t').fetchone()[0]",
        5,
        id="sqlite3",
    ),
    pytest.param(
        "import seaborn, openpyxl, tabulate, PIL\ntabulate.tabulate([[1, 2]], tablefmt='plain')",
        "1  2",
        id="extras-import",
    ),
    pytest.param(
        # The data-task packages (docs/package-coverage.md), offline.
        "import datetime, holidays, requests\nfrom bs4 import BeautifulSoup\n"
        "from faker import Faker\nfake = Faker(); fake.seed_instance(0)\n"
        "soup = BeautifulSoup('<ul><li class=a>hi</li><li>x</li></ul>', 'html.parser')\n"
        "[datetime.date(2026, 12, 25) in holidays.US(years=2026), bool(fake.name()),\n"
        " requests.codes.ok, soup.select_one('li.a').text]",
        [True, True, 200, "hi"],
        id="data-task-extras",
    ),
    pytest.param("import wasmbox_kernel; wasmbox_kernel.__name__", "wasmbox_kernel", id="kernel"),
    pytest.param(
        # The build's bytecode (hash-based, unchecked), not a .pyc written at import (timestamped).
        "import pandas, tabulate\nfrom importlib.util import cache_from_source\n"
        "def flags(module):\n"
        "    header = open(cache_from_source(module.__file__), 'rb').read(8)\n"
        "    return int.from_bytes(header[4:], 'little')\n"
        "[flags(pandas), flags(tabulate)]",
        [0b01, 0b01],
        id="bytecode-from-the-build",
    ),
]


@pytest.mark.parametrize(("code", "expected"), COMPUTATIONS)
def test_package_computes(booted: tuple[Page, RequestLog], code: str, expected: object) -> None:
    page, _ = booted
    assert run(page, code) == expected


UNPACK_BOTH_WAYS = """
import json, os
from pyodide import _package_loader as loader
from pyodide.ffi import to_js
from pyodide.http import pyfetch
from wasmbox_kernel._patches.wheel_unpack import unpack_from_memory

def tree(root):
    paths = [os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names]
    return sorted((os.path.relpath(path, root), open(path, "rb").read()) for path in paths)

manifest = json.loads(await (await pyfetch("/runtime/manifest.json")).string())
report = []
for package in ("pytz", "numpy"):
    file = manifest["packages"][package]["file"]
    data = to_js(await (await pyfetch("/runtime/" + file)).bytes())
    installed = {}
    for label, unpack in (("pyodide", loader.unpack_buffer), ("ours", unpack_from_memory(loader))):
        root = f"/tmp/unpack-{label}/{package}"
        libraries = unpack(data, filename=file, extract_dir=root, calculate_dynlibs=True,
                           installer="pyodide.loadPackage", source="pyodide")
        installed[label] = (tree(root), sorted(os.path.relpath(p, root) for p in libraries))
    files, libraries = installed["ours"]
    report.append([package, installed["ours"] == installed["pyodide"], len(files), len(libraries)])
report
"""


def test_unpacking_from_memory_installs_what_pyodides_own_unpack_does(
    booted: tuple[Page, RequestLog],
) -> None:
    """The kernel's faster installer (wasmbox_kernel/_patches/wheel_unpack.py) against Pyodide's
    own, on real wheels: the same files with the same bytes, the same records, the same
    libraries."""
    page, _ = booted
    report = run(page, UNPACK_BOTH_WAYS)
    assert isinstance(report, list)
    (_, pytz_same, pytz_files, _), (_, numpy_same, _, numpy_libraries) = report
    assert pytz_same is True and pytz_files > 600
    assert numpy_same is True and numpy_libraries > 10  # its extension modules


def test_missing_package_is_not_fetched(booted: tuple[Page, RequestLog]) -> None:
    page, _ = booted
    result = run(
        page, "try:\n    import shapely\nexcept ImportError as e:\n    r = type(e).__name__\nr"
    )
    assert result == "ModuleNotFoundError"


def test_no_request_leaves_the_app_origin(booted: tuple[Page, RequestLog]) -> None:
    """Runs last in this module: by now every package above has been fetched."""
    _, log = booted
    assert any(url.endswith(".whl") for url in log.urls), "worker requests should be observed"
    assert log.foreign() == []


@pytest.fixture
def snapshot_page(browser, app_server: str) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{app_server}/test-pages/runtime-boot.html?snapshot=snapshot.bin")
    page.evaluate("window.ready")
    yield page
    context.close()


def test_boots_from_the_startup_snapshot(snapshot_page: Page) -> None:
    assert run(snapshot_page, "import numpy as np; int(np.arange(5, dtype=np.int64).sum())") == 10
