"""Runs that do not end on their own: deadlines (soft when cross-origin isolated, hard otherwise),
loops inside C, stack overflow and memory bombs. Each ends in a result, and the sandbox recovers."""

from __future__ import annotations

import pytest

from tests.browser.sandbox.conftest import SdkPage

pytestmark = pytest.mark.browser


def isolated(sdk: SdkPage) -> bool:
    return bool(sdk.page.evaluate("wasmbox.isolated"))


def test_python_loop_hits_the_deadline_then_recovers(sdk: SdkPage) -> None:
    sandbox = sdk.create()
    sdk.run(sandbox, "x = 7")
    result = sdk.run(sandbox, "while True: pass", timeoutMs=1000)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    # Isolated: the interrupt buffer stops Python and keeps state; plain: the worker is replaced.
    assert result["stateLost"] is not isolated(sdk)
    after = sdk.run(sandbox, "print(globals().get('x'))")
    assert after["outcome"] == "OUTCOME_OK"
    assert after["stdout"] == ("7\n" if isolated(sdk) else "None\n")
    assert after["stateLost"] is False


def test_deadline_while_packages_load_waits_for_them_and_keeps_state(sdk: SdkPage) -> None:
    """The deadline passes while sympy is still unpacking: no code of the caller's has run, so
    the watchdog lets the load finish (the cell is then skipped) instead of restarting."""
    sandbox = sdk.create()
    sdk.run(sandbox, "x = 7")
    result = sdk.run(sandbox, "import sympy\nwhile True: pass", timeoutMs=200)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    assert result["stateLost"] is not isolated(sdk)
    if isolated(sdk):
        assert sdk.run(sandbox, "print(x, 'sympy' in globals())")["stdout"] == "7 False\n"


def test_deadline_result_keeps_streamed_output(sdk: SdkPage) -> None:
    sandbox = sdk.create()
    code = "print('started', flush=True)\nimport time\ntime.sleep(0.3)\nsum(range(10**11))"
    result = sdk.run(sandbox, code, timeoutMs=1500)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    assert result["stdout"].startswith("started")


def test_c_level_loop_is_killed(sdk: SdkPage) -> None:
    """`sum(range(...))` never checks for interrupts: the worker is terminated and replaced."""
    sandbox = sdk.create()
    result = sdk.run(sandbox, "sum(range(10**11))", timeoutMs=1000)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    assert result["stateLost"] is True
    assert sdk.run(sandbox, "1 + 1")["value"]["text/plain"] == "2"


def test_stack_overflow_is_a_recursion_error(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "def f(n):\n    return f(n + 1)\nf(0)")
    assert result["outcome"] == "OUTCOME_FAILED"
    assert result["error"]["name"] == "RecursionError"
    assert sdk.run(sandbox, "'alive'")["outcome"] == "OUTCOME_OK"


def test_memory_bomb_is_memory_exceeded(sdk: SdkPage) -> None:
    """Six 100 MB buffers past the 4 GB a wasm32 heap can address."""
    sandbox = sdk.create()
    result = sdk.run(sandbox, "x = [bytearray(10**8) for _ in range(60)]")
    assert result["outcome"] == "OUTCOME_MEMORY_EXCEEDED", result["error"]
    assert sdk.page.evaluate("1 + 1") == 2, "the tab must stay responsive"
    assert sdk.run(sandbox, "'alive'")["outcome"] == "OUTCOME_OK"


def test_three_gigabyte_bytearray_does_not_kill_the_tab(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "x = bytearray(3_000_000_000)")
    assert result["outcome"] != "OUTCOME_OK"
    assert sdk.run(sandbox, "'alive'")["outcome"] == "OUTCOME_OK"


def test_three_gigabyte_bytearray_is_memory_exceeded(sdk: SdkPage, sandbox: str) -> None:
    result = sdk.run(sandbox, "x = bytearray(3_000_000_000)")
    assert result["outcome"] == "OUTCOME_MEMORY_EXCEEDED"
    assert "32-bit WebAssembly" in result["error"]["message"]


def test_memory_budget_recycles_the_worker(sdk: SdkPage) -> None:
    sandbox = sdk.create(memoryBudgetBytes=200 * 1024**2)
    result = sdk.run(sandbox, "x = bytearray(300 * 1024**2)\n'done'")
    assert result["outcome"] == "OUTCOME_OK"
    assert result["stateLost"] is True
    assert sdk.run(sandbox, "'x' in globals()")["value"]["text/plain"] == "False"


def test_worker_closing_itself_ends_in_a_result(sdk: SdkPage) -> None:
    sandbox = sdk.create(policy="off")
    result = sdk.run(sandbox, "import js\njs.close()\nwhile True: pass", timeoutMs=1500)
    assert result["outcome"] in ("OUTCOME_DEADLINE_EXCEEDED", "OUTCOME_FAILED")
    assert sdk.run(sandbox, "'alive'")["outcome"] == "OUTCOME_OK"
