"""The SDK contract's basics on a static host with no headers (no COOP/COEP): runs, files, the
mode environment() reports, and a timeout that replaces the sandbox and says so."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = [pytest.mark.browser, pytest.mark.sub_path_in_chromium]


@pytest.fixture(scope="module")
def sandbox(sdk: SdkPage) -> str:
    return sdk.create()


def test_a_run_prints_and_returns(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "print(6 * 7)\n6 * 7")
    assert result["outcome"] == "OUTCOME_OK"
    assert result["stdout"] == "42\n"
    assert result["value"]["text/plain"] == "42"


def test_files_go_in_and_come_out(sdk: SdkPage, sandbox: str) -> None:
    sdk.call(sandbox, "writeFile", "data.txt", "static host")
    result = sdk.run(sandbox, "open('data.txt').read().upper()")
    assert result["value"]["text/plain"] == "'STATIC HOST'"


def test_environment_names_the_terminate_only_mode(sdk: SdkPage, sandbox: str) -> None:
    environment = sdk.call(sandbox, "environment")
    assert environment["mode"] == "terminate-only"
    assert "not cross-origin isolated" in environment["modeReason"]


def test_a_timeout_replaces_the_sandbox_and_says_so(sdk: SdkPage, sandbox: str) -> None:
    sdk.run(sandbox, "kept = 1")
    result = sdk.run(sandbox, "while True: pass", timeoutMs=1_000)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    assert result["stateLost"] is True
    after = sdk.run(sandbox, "'kept' in globals(), open('data.txt').read()")
    assert after["value"]["text/plain"] == "(False, 'static host')"


def test_numpy_imports(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "import numpy as np\nint(np.arange(10).sum())")
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"]["text/plain"] == "45"
