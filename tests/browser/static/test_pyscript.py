"""The PyScript example of the export: trusted PyScript code (its interpreter is wasmbox's own
runtime, @pyscript/core served from the export) hands untrusted code to a wasmbox sandbox and shows
the result. Nothing is fetched from anywhere but the export's own host."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from backend.settings import Settings
from tests.support import servers
from tests.support.network import watch_requests

pytestmark = pytest.mark.browser

READY_TIMEOUT_MS = 240_000


def test_pyscript_hands_untrusted_code_to_the_sandbox(page: Page, static_site: str) -> None:
    requests = watch_requests(page.context, static_site)
    page.goto(f"{static_site}examples/pyscript.html")
    # PyScript's own interpreter shares the page...
    expect(page.get_by_role("status")).to_have_text(
        "PyScript ready; it can reach the page: True", timeout=READY_TIMEOUT_MS
    )
    page.get_by_role("button", name="Run in the sandbox").click()
    result = page.get_by_role("log", name="Result")
    # ...the untrusted code ran in the sandbox, which cannot.
    expect(result).to_contain_text("outcome: OUTCOME_OK", timeout=READY_TIMEOUT_MS)
    expect(result).to_contain_text("running on emscripten in the sandbox")
    expect(result).to_contain_text("value: 42")
    assert requests.foreign() == [], "no CDN, no other host"


def test_untrusted_code_cannot_reach_the_page(page: Page, static_site: str) -> None:
    page.goto(f"{static_site}examples/pyscript.html")
    run = page.get_by_role("button", name="Run in the sandbox")
    expect(run).to_be_enabled(timeout=READY_TIMEOUT_MS)
    page.get_by_label("Untrusted code").fill("import js\njs.document.title = 'owned'")
    run.click()
    result = page.get_by_role("log", name="Result")
    expect(result).to_contain_text("outcome: OUTCOME_POLICY_VIOLATION", timeout=READY_TIMEOUT_MS)
    expect(result).to_contain_text("import of 'js' is blocked")
    assert page.title() != "owned"


def test_behind_wasmbox_serve_eval_is_the_pages_alone(page: Page, runtime_built: None) -> None:
    """PyScript needs eval on its page (served with 'unsafe-eval'); the sandbox frame inherits
    that but keeps its own policy, so even with the kernel's policy off the worker cannot eval."""
    with servers.running(servers.test_app(Settings())) as url:
        page.goto(f"{url}/examples/pyscript.html")
        expect(page.get_by_role("button", name="Run in the sandbox")).to_be_enabled(
            timeout=READY_TIMEOUT_MS
        )
        assert page.evaluate("() => { try { return eval('6 * 7'); } catch { return null; } }") == 42
        result = page.evaluate(
            """async () => {
                const { Sandbox } = await import("/sdk/wasmbox.js");
                const sb = await Sandbox.create({ policy: "off", timeoutMs: 120000 });
                return sb.execute("from pyodide.code import run_js\\nrun_js('6 * 7')");
            }"""
        )
        assert result["outcome"] == "OUTCOME_FAILED", result
        assert "EvalError" in result["error"]["traceback"] or "unsafe-eval" in str(result["error"])
