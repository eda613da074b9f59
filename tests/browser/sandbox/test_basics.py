"""The SDK's core contract through Chromium: results, state, values, displays, streams, limits."""

from __future__ import annotations

import base64

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser

# Loading pandas or matplotlib takes seconds, far more on a busy machine and in slower engines:
# these tests are about what the run gives, not how fast.
PACKAGES_DEADLINE_MS = 240_000  # under the engines' 300 s script timeout


def test_print_is_ok(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "print(1 + 1)")
    assert result["outcome"] == "OUTCOME_OK"
    assert result["stdout"] == "2\n"
    assert result["stateLost"] is False
    assert result["durationMs"] > 0
    assert result["error"] is None
    assert len(result["audit"]["codeSha256"]) == 64
    assert result["audit"]["peakMemoryBytes"] > 0


def test_result_has_exactly_the_contract_fields(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "1")
    contract = {"outcome", "stdout", "stderr", "truncated", "value", "displays", "files"}
    contract |= {"error", "durationMs", "stateLost", "audit"}
    assert contract <= set(result) <= contract | {"policy", "validation"}
    assert set(result["audit"]) == {
        "codeSha256",
        "filesRead",
        "filesWritten",
        "networkAttempts",
        "importedModules",
        "peakMemoryBytes",
        "toolCalls",
    }


def test_state_persists_across_calls(sdk: SdkPage, sandbox: str) -> None:
    sdk.run(sandbox, "x = 41")
    assert sdk.run(sandbox, "print(x + 1)")["stdout"] == "42\n"


def test_last_expression_is_the_value(sdk: SdkPage, sandbox: str) -> None:
    value = sdk.run(sandbox, "{'a': [1, 2]}")["value"]
    assert value["text/plain"] == "{'a': [1, 2]}"
    assert value["application/json"] == '{"a": [1, 2]}'


def test_top_level_await_waits_and_keeps_state(sdk: SdkPage, sandbox: str) -> None:
    """A cell that awaits runs as a task (a plain one finishes inside the kernel's call)."""
    code = "import asyncio\nprint('before')\nawait asyncio.sleep(0.05)\n"
    code += "y = 7\nawait asyncio.sleep(0, y * 6)"
    result = sdk.run(sandbox, code)
    assert (result["outcome"], result["stdout"]) == ("OUTCOME_OK", "before\n")
    assert result["value"]["text/plain"] == "42"
    assert sdk.run(sandbox, "y")["value"]["text/plain"] == "7"


def test_pandas_finds_utc_without_reading_every_bundled_zone(sdk: SdkPage, sandbox: str) -> None:
    code = (
        "import pandas as pd\nfrom dateutil.tz import gettz\n"
        "(str(pd.Timestamp('2024-07-01 12:00', tz='UTC')), repr(gettz('UTC')))"
    )
    result = sdk.run(sandbox, code, timeoutMs=PACKAGES_DEADLINE_MS)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    stamp, zone = "'2024-07-01 12:00:00+00:00'", "tzfile('/usr/share/zoneinfo/UTC')"
    assert result["value"]["text/plain"] == f'({stamp}, "{zone}")'


def test_invalidating_import_caches_rereads_no_unchanged_zip(sdk: SdkPage, sandbox: str) -> None:
    """Pyodide does it after every package it loads; each re-read of the standard library's zip
    cost about 0.1 s (see wasmbox_kernel/_patches/zip_cache.py)."""
    code = (
        "import importlib, zipimport\nreads = []\nread = zipimport._read_directory\n"
        "zipimport._read_directory = lambda archive: (reads.append(archive), read(archive))[1]\n"
        "importlib.invalidate_caches()\nzipimport._read_directory = read\nreads"
    )
    result = sdk.run(sandbox, code)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"]["text/plain"] == "[]"


def test_display_and_matplotlib_png(sdk: SdkPage, sandbox: str) -> None:
    code = "import matplotlib.pyplot as plt\ndisplay('hello')\nplt.plot([1, 2, 3])\n"
    result = sdk.run(sandbox, code, timeoutMs=PACKAGES_DEADLINE_MS)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    mimes = [d["mime"] for d in result["displays"]]
    assert "image/png" in mimes
    png = next(d["data"] for d in result["displays"] if d["mime"] == "image/png")
    assert base64.b64decode(png).startswith(b"\x89PNG\r\n\x1a\n")
    assert "Loading" not in result["stdout"], "package-loading chatter must not reach stdout"


def test_output_is_streamed(sdk: SdkPage, sandbox: str) -> None:
    code = "import time\nfor i in range(3):\n    print(i)\n    time.sleep(0.1)"
    result = sdk.run(sandbox, code)
    chunks = sdk.page.evaluate("wasmbox.streams.stdout")
    assert "".join(chunks) == result["stdout"] == "0\n1\n2\n"
    assert len(chunks) >= 2


def test_stdout_is_capped(sdk: SdkPage) -> None:
    capped = sdk.create(stdoutLimit=1000)
    result = sdk.run(capped, "print('x' * 50_000)")
    assert result["outcome"] == "OUTCOME_OK"
    assert result["truncated"] is True
    assert 1000 <= len(result["stdout"]) < 2000


def test_missing_package_names_what_is_available(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "import shapely")
    assert result["outcome"] == "OUTCOME_FAILED"
    assert result["error"]["name"] == "ModuleNotFoundError"
    assert "numpy" in result["error"]["message"]


def test_policy_violation_names_rule_and_line(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "x = 1\nimport ctypes")
    assert result["outcome"] == "OUTCOME_POLICY_VIOLATION"
    assert result["policy"]["line"] == 2


def test_policy_off_allows_js(sdk: SdkPage) -> None:
    open_sandbox = sdk.create(policy="off")
    assert sdk.run(open_sandbox, "import js; 'ok'")["outcome"] == "OUTCOME_OK"


SCHEMA = {
    "type": "object",
    "properties": {"total": {"type": "integer"}},
    "required": ["total"],
}


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        pytest.param("{'total': 3}", True, id="valid"),
        pytest.param("{'total': 'three'}", False, id="wrong-type"),
        pytest.param("print('no value')", False, id="no-value"),
    ],
)
def test_expect_validates_the_value(sdk: SdkPage, sandbox: str, code: str, ok: bool) -> None:
    validation = sdk.run(sandbox, code, expect=SCHEMA)["validation"]
    assert validation["ok"] is ok
    assert (validation["errors"] == []) is ok


def test_environment_describes_the_runtime(sdk: SdkPage, sandbox: str) -> None:
    env = sdk.call(sandbox, "environment")
    assert env["python"] == "3.12.7"
    assert env["packages"]["numpy"] == "2.0.2"
    assert any("32-bit" in note for note in env["notes"])
    assert env["limits"]["timeoutMs"] == 30_000


def test_calls_on_one_sandbox_run_in_order(sdk: SdkPage) -> None:
    queued = sdk.create()
    order = sdk.page.evaluate(
        """async id => {
            const sb = wasmbox.Sandbox.get(id);
            const runs = [sb.execute("import time; time.sleep(0.2); 'a'"), sb.execute("'b'")];
            return (await Promise.all(runs)).map(r => r.value["text/plain"]);
        }""",
        queued,
    )
    assert order == ["'a'", "'b'"]


def test_lifecycle_get_list_close(sdk: SdkPage) -> None:
    sandbox_id = sdk.create()
    info = sdk.page.evaluate("id => wasmbox.Sandbox.list().find(s => s.id === id)", sandbox_id)
    assert info["state"] == "ready"
    assert info["createdAt"] <= info["lastUsedAt"]
    state = sdk.page.evaluate(
        """async id => {
            const sb = wasmbox.Sandbox.get(id);
            await sb.close();
            return [sb.state, wasmbox.Sandbox.get(id) === undefined];
        }""",
        sandbox_id,
    )
    assert state == ["closed", True]


@pytest.mark.chromium_only("the shipped font cache is a file of the runtime, read the same way")
def test_the_first_plot_does_not_build_the_font_cache(sdk: SdkPage) -> None:
    """The runtime ships a font cache matplotlib accepts (builder/font_cache.py)."""
    sandbox = sdk.create()
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"
    result = sdk.run(sandbox, code, timeoutMs=300_000)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert "font cache" not in result["stderr"]
    assert result["displays"], "the figure is shown"


ARTIST_TABLE = """
import inspect
import matplotlib.artist
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D

class Mine(Line2D):
    def set_wobble(self, wobble):
        "Set the wobble."

[hasattr(matplotlib.artist.kwdoc, "__wrapped__"),
 Line2D.set.__doc__.startswith("Set multiple properties at once."),
 "linewidth" in inspect.signature(Line2D.set).parameters,
 "wobble" in inspect.signature(Mine.set).parameters]
"""


@pytest.mark.chromium_only("the artist table is a file of the runtime, read the same way")
def test_matplotlibs_set_text_comes_from_the_builds_table(sdk: SdkPage, sandbox: str) -> None:
    """The worker hooks matplotlib.artist before any import (kernel/_patches/artist_set.py):
    the table shipped in the wheel is in use, and a user's class still gets its own `set`."""
    result = sdk.run(sandbox, ARTIST_TABLE, timeoutMs=PACKAGES_DEADLINE_MS)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"]["text/plain"] == "[True, True, True, True]"


def test_each_sandbox_draws_its_own_random_numbers(sdk: SdkPage, sandbox: str) -> None:
    """Every worker starts from the same memory snapshot, `random`'s state in it: the kernel
    reseeds from the browser's entropy (a seed kept from the snapshot would repeat the draws)."""
    code = "import random\nrandom.random()"
    draws = [sdk.run(sandbox, code)["value"]["text/plain"]]
    draws.append(sdk.run(sdk.create(), code)["value"]["text/plain"])
    assert draws[0] != draws[1]


def test_plotly_express_draws_in_a_sandbox_that_never_loaded_pandas(sdk: SdkPage) -> None:
    """plotly.express builds its figures with numpy and pandas, which plotly does not declare:
    the cell's import of it loads them too (a new sandbox's preloads may not have reached them)."""
    fresh = sdk.create(timeoutMs=PACKAGES_DEADLINE_MS)
    unloaded = sdk.run(fresh, "__import__('importlib.util').util.find_spec('pandas') is None")
    assert unloaded["value"]["text/plain"] == "True", "pandas is not in this sandbox yet"
    code = "import plotly.express as px\npx.scatter(x=[1, 2, 3], y=[10, 20, 30], title='Growth')"
    result = sdk.run(fresh, code, timeoutMs=PACKAGES_DEADLINE_MS)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"]["text/plain"].startswith("plotly figure: scatter, 1 trace(s), 3 points")
