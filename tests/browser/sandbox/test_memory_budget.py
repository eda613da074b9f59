"""memoryBudgetBytes holds while the run runs: the worker refuses to grow its WebAssembly memory
past it, so the allocation raises MemoryError where it happens. The run ends as
OUTCOME_MEMORY_EXCEEDED, the variables defined before it are kept, and the worker's memory never
went past the budget (sandbox/memory-budget.ts)."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser

BUDGET = 400 * 1024**2
RUN_TIMEOUT_MS = 120_000  # WebKitGTK on a loaded machine fills 400 MB slowly
# The worker's memory as it is now: it only grows, so this is the most it ever took. Read
# through Pyodide's own module (policy "off"), not through the SDK being tested.
MEMORY_SIZE = "import pyodide_js\npyodide_js._module.HEAP8.length"

ALLOCATIONS = [
    pytest.param("b = bytearray(700_000_000)\ndel b\nprint('after')", id="bytearray"),
    pytest.param("import numpy as np\na = np.ones(100_000_000)\nprint('after')", id="numpy-array"),
    pytest.param(
        "def grow():\n    chunks = []\n    while True:\n        chunks.append(bytearray(10**6))\n"
        "grow()\nprint('after')",
        id="growing-list",
    ),
    pytest.param(
        "import pandas as pd\nframe = pd.DataFrame({'a': range(100_000_000)})\nprint('after')",
        id="pandas-frame",
    ),
]


@pytest.fixture(scope="module")
def budgeted(sdk: SdkPage) -> str:
    """One sandbox with a 400 MB budget and a variable each test expects to find again."""
    # numpy and pandas loaded at the start (a slow engine's import is not the run's to wait for).
    sandbox = sdk.create(memoryBudgetBytes=BUDGET, policy="off", packages=["numpy", "pandas"])
    assert sdk.run(sandbox, "kept = 'before'")["outcome"] == "OUTCOME_OK"
    return sandbox


def memory_size(sdk: SdkPage, sandbox: str) -> int:
    result = sdk.run(sandbox, MEMORY_SIZE)
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    return int(result["value"]["text/plain"])


def test_the_worker_holds_the_budget_during_the_run(sdk: SdkPage, budgeted: str) -> None:
    limits = sdk.call(budgeted, "environment")["limits"]
    assert limits["memoryBudgetBytes"] == BUDGET
    assert limits["memoryBudgetHeld"] == "during-run"
    assert memory_size(sdk, budgeted) < BUDGET, "the test needs a worker that booted under it"


@pytest.mark.parametrize("code", ALLOCATIONS)
def test_an_allocation_past_the_budget_is_refused_and_the_state_kept(
    sdk: SdkPage, budgeted: str, code: str
) -> None:
    result = sdk.run(budgeted, code, timeoutMs=RUN_TIMEOUT_MS)
    assert result["outcome"] == "OUTCOME_MEMORY_EXCEEDED", result["error"]
    assert result["stateLost"] is False
    assert "after" not in result["stdout"], "the run went on past the allocation"
    assert "MemoryError" in result["error"]["traceback"] or "MemoryError" in result["error"]["name"]
    assert f"memoryBudgetBytes of {BUDGET}" in result["error"]["message"]
    # Memory cannot shrink: its size now is the most the run (or any before it) took.
    assert memory_size(sdk, budgeted) <= BUDGET
    assert 0 < result["audit"]["peakMemoryBytes"] <= BUDGET
    kept = sdk.run(budgeted, "kept")
    assert kept["value"]["text/plain"] == "'before'"
    assert kept["stateLost"] is False


def test_a_run_that_catches_the_memory_error_still_ran_into_the_budget(
    sdk: SdkPage, budgeted: str
) -> None:
    code = "try:\n    b = bytearray(700_000_000)\nexcept MemoryError:\n    print('caught')"
    result = sdk.run(budgeted, code)
    assert result["stdout"] == "caught\n"
    assert result["outcome"] == "OUTCOME_MEMORY_EXCEEDED"
    assert result["error"]["name"] == "MemoryError"
    assert f"memoryBudgetBytes of {BUDGET}" in result["error"]["message"]


def test_an_allocation_within_the_budget_is_served(sdk: SdkPage, budgeted: str) -> None:
    result = sdk.run(budgeted, "small = bytearray(50 * 1024**2)\nlen(small)")
    assert result["outcome"] == "OUTCOME_OK", result["error"]
    assert result["value"]["text/plain"] == str(50 * 1024**2)
