"""A resumed session is the session it was, beyond its variables: the settings its runs made
through calls (seeded generators, library options, warnings filters, environment variables)
and the attributes they set on modules, its own modules' state included. What cannot come back
is named in the resume report, and the model is told."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import create, flush, load_sdk, plain, resume, run
from .test_report import ASK

pytestmark = pytest.mark.browser

HELPERS = "cache = {}\n\ndef bump():\n    cache['n'] = cache.get('n', 0) + 1\n"
SETUP = (
    f"open('helpers.py', 'w').write({HELPERS!r})\n"
    "import decimal, math, os, random, warnings\n"
    "import helpers, matplotlib, numpy as np, pandas as pd\n"
    "helpers.bump(); helpers.bump()\n"
    "helpers.stream = (i for i in range(3))\n"
    "math.answer = 42\n"
    "random.seed(11); np.random.seed(11)\n"
    "np.set_printoptions(precision=3)\n"
    "pd.set_option('display.max_rows', 7)\n"
    "matplotlib.rcParams['lines.linewidth'] = 4.5\n"
    "warnings.filterwarnings('ignore', message='noisy')\n"
    "os.environ['MODE'] = 'analysis'\n"
    "decimal.setcontext(decimal.Context(prec=9))\n"
)
CHECK = (
    "(random.random() == random.Random(11).random(),\n"
    " float(np.random.random()) == np.random.RandomState(11).random(),\n"
    " np.get_printoptions()['precision'], pd.get_option('display.max_rows'),\n"
    " matplotlib.rcParams['lines.linewidth'],\n"
    " [f[0] for f in warnings.filters if f[1] is not None and f[1].pattern == 'noisy'],\n"
    " os.environ.get('MODE'), decimal.getcontext().prec,\n"
    " helpers.cache, math.answer, hasattr(helpers, 'stream'))"
)


def test_settings_and_module_attributes_come_back(page: Page, isolated_server: str) -> None:
    sandbox_id = create(page)
    run(page, sandbox_id, SETUP)
    flush(page, sandbox_id)
    page.reload()
    load_sdk(page, isolated_server)

    report = resume(page, sandbox_id)
    assert {"helpers", "math", "np", "pd", "random"} <= set(report["restored"])
    [missing] = report["notRestored"]
    assert missing["name"] == "helpers.stream" and "generator" in missing["reason"]
    assert plain(page, sandbox_id, CHECK) == (
        "(True, True, 3, 7, 4.5, ['ignore'], 'analysis', 9, {'n': 2}, 42, False)"
    )
    # The module's own function still updates the restored dictionary.
    assert plain(page, sandbox_id, "helpers.bump(); helpers.cache") == "{'n': 3}"
    prompt = page.evaluate(ASK, sandbox_id)
    assert "helpers.stream (" in prompt and "recompute them" in prompt
