"""`execute(code, {signal})`: the caller can cancel a run (the app's Stop button does)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.sandbox.conftest import SdkPage, open_sdk_page
from tests.support.engines import EngineBrowser

# Deadlines and graces in wall-clock time: run alone, after the parallel pass (Makefile).
pytestmark = [pytest.mark.browser, pytest.mark.timing]

# Starts `code` with an AbortSignal, aborts it after `ms`, returns the result.
RUN_AND_ABORT = """async ([id, code, ms]) => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms);
  const options = { signal: controller.signal, timeoutMs: 60000 };
  const r = await wasmbox.Sandbox.get(id).execute(code, options);
  return { outcome: r.outcome, stateLost: r.stateLost, error: r.error, durationMs: r.durationMs };
}"""


def run_and_abort(sdk: SdkPage, sandbox: str, code: str, ms: int) -> dict[str, Any]:
    result: dict[str, Any] = sdk.page.evaluate(RUN_AND_ABORT, [sandbox, code, ms])
    return result


def assert_state_after_abort(sdk: SdkPage, sandbox: str, result: dict[str, Any]) -> None:
    """Isolated: the interrupt stopped the run and `x` is kept. Plain: there is no interrupt, so
    the worker was replaced and `x` is gone, unless the abort came before the worker took the
    run (a slower engine can lose that race): either way `stateLost` says which, and the sandbox
    serves the next run."""
    isolated = bool(sdk.page.evaluate("wasmbox.isolated"))
    if isolated:
        assert result["stateLost"] is False
    after = sdk.run(sandbox, "print(globals().get('x'))")
    assert after["outcome"] == "OUTCOME_OK"
    assert after["stdout"] == ("None\n" if result["stateLost"] else "7\n"), result


def test_aborting_a_python_loop_cancels_it(sdk: SdkPage) -> None:
    sandbox = sdk.create()
    sdk.run(sandbox, "x = 7")
    result = run_and_abort(sdk, sandbox, "while True: pass", 500)
    isolated = bool(sdk.page.evaluate("wasmbox.isolated"))

    assert result["outcome"] == "OUTCOME_CANCELLED"
    assert result["durationMs"] < 30_000  # ended by the abort, long before its deadline
    assert result["stateLost"] is not isolated  # interrupt keeps state; the hard path cannot
    after = sdk.run(sandbox, "print(globals().get('x'))")
    assert after["stdout"] == ("7\n" if isolated else "None\n")


def test_aborting_a_c_loop_restarts_the_sandbox(c_loop_sdk: SdkPage) -> None:
    sdk = c_loop_sdk
    sandbox = sdk.create()
    result = run_and_abort(sdk, sandbox, "sum(range(10**11))", 500)
    assert result["outcome"] == "OUTCOME_CANCELLED"
    assert result["stateLost"] is True
    assert sdk.run(sandbox, "1 + 1")["outcome"] == "OUTCOME_OK"


def test_a_run_aborted_before_it_starts_never_runs(sdk: SdkPage) -> None:
    sandbox = sdk.create()
    result = sdk.page.evaluate(
        """async (id) => {
          const controller = new AbortController();
          controller.abort();
          const r = await wasmbox.Sandbox.get(id).execute("open('ran.txt', 'w').write('x')",
                                                          { signal: controller.signal });
          return r.outcome;
        }""",
        sandbox,
    )
    assert result == "OUTCOME_CANCELLED"
    assert (
        sdk.run(sandbox, "import os; os.path.exists('ran.txt')")["value"]["text/plain"] == "False"
    )


def test_abort_while_packages_load_still_keeps_state(sdk: SdkPage) -> None:
    """The abort lands while sympy is being installed (Python runs there too); the interrupt must
    wait for the cell instead of being swallowed by the loader, or the state is lost."""
    sandbox = sdk.create()
    sdk.run(sandbox, "x = 7")
    result = run_and_abort(sdk, sandbox, "import sympy\nwhile True: pass", 150)
    assert result["outcome"] == "OUTCOME_CANCELLED"
    assert_state_after_abort(sdk, sandbox, result)


def test_abort_before_the_worker_starts_the_run_still_keeps_state(sdk: SdkPage) -> None:
    """The abort reaches the frame before the worker has taken the run off its queue. The
    interrupt must be kept for that run, not wiped as a stale one, or the loop runs on to the
    hard kill and the state is lost."""
    sandbox = sdk.create()
    for delay_ms in [0, 1, 1, 2, 2, 3, 5]:  # the race is timing-dependent: try it around the post
        sdk.run(sandbox, "x = 7")
        result = run_and_abort(sdk, sandbox, "while True: pass", delay_ms)
        assert result["outcome"] == "OUTCOME_CANCELLED"
        assert_state_after_abort(sdk, sandbox, result)


SWALLOWS_ONE_INTERRUPT = """
caught = 0
while True:
    try:
        while True:
            pass
    except KeyboardInterrupt:
        caught += 1
        if caught == 2:
            raise
"""


def test_the_interrupt_is_repeated_while_the_run_goes_on(
    engine: EngineBrowser, isolated_server: str
) -> None:
    """Python's signal check can lose a write (it reads, then clears), so the frame repeats the
    interrupt until the run ends. Code that swallows the first one meets the second. Interrupts
    exist only with cross-origin isolation, so this runs on that server alone."""
    context, sdk = open_sdk_page(engine, isolated_server)
    assert sdk.page.evaluate("wasmbox.isolated") is True
    sandbox = sdk.create()
    result = run_and_abort(sdk, sandbox, SWALLOWS_ONE_INTERRUPT, 300)
    assert result["outcome"] == "OUTCOME_CANCELLED"
    assert result["stateLost"] is False
    assert sdk.run(sandbox, "print(caught)")["stdout"] == "2\n"
    context.close()
