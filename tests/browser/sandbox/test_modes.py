"""The mode each engine runs in, and the refusals: `environment()` names how a stopped run ends
(interrupt, state kept; or terminate-only, state lost), results say what it cost, and where the
browser does not apply the sandbox's isolation the SDK does not start at all."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator

import pytest
from fastapi import Request, Response

from tests.browser.sandbox.conftest import SdkPage, app_with_page_headers, open_sdk_page
from tests.browser.sandbox.test_isolation import Attacker
from tests.support.engines import ENGINE_GAPS, EngineBrowser, lacks
from tests.support.servers import running

pytestmark = pytest.mark.browser

CREATE_ERROR = "o => wasmbox.Sandbox.create(o).then(() => 'started', (e) => e.message)"


@pytest.fixture
def expected_mode(request: pytest.FixtureRequest) -> str:
    """The mode the test's own setup calls for, not the SDK's word: interrupts on the server
    that sends COOP/COEP (an engine without SharedArrayBuffer there is skipped, ENGINE_GAPS),
    terminate-only on the plain one."""
    served = request.node.callspec.params["sdk_server"]
    return "interrupt" if served == "isolated" else "terminate-only"


def test_environment_names_the_mode(sdk: SdkPage, sandbox: str, expected_mode: str) -> None:
    env = sdk.call(sandbox, "environment")
    assert env["mode"] == expected_mode
    if expected_mode == "interrupt":
        assert env["modeReason"] is None
    else:
        assert "not cross-origin isolated" in env["modeReason"]
    assert sdk.page.evaluate("id => wasmbox.Sandbox.get(id).mode", sandbox) == expected_mode


def test_a_deadline_says_what_the_mode_cost(sdk: SdkPage, expected_mode: str) -> None:
    sandbox = sdk.create()
    mode = expected_mode
    sdk.run(sandbox, "x = 7")
    result = sdk.run(sandbox, "while True: pass", timeoutMs=1000)
    assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED"
    assert result["stateLost"] is (mode == "terminate-only")
    if mode == "terminate-only":
        assert "terminate-only mode" in result["error"]["message"]
    else:
        assert "state is kept" in result["error"]["message"]


@pytest.fixture(scope="module")
def coi_server(runtime_built: None) -> Iterator[str]:
    """The app with COOP/COEP, for every engine (isolated_server is skipped where it cannot run)."""
    with running(app_with_page_headers(True)) as url:
        yield url


def test_cross_origin_isolation_gives_interrupts_or_a_refusal(
    engine: EngineBrowser, coi_server: str
) -> None:
    page, sdk = open_sdk_page(engine, coi_server)
    try:
        if (engine.name, "isolated") in ENGINE_GAPS:
            refusal = sdk.page.evaluate(CREATE_ERROR, {})
            assert "the sandbox did not start: the sandbox worker crashed" in refusal, refusal
        else:
            sandbox = sdk.create()
            assert sdk.call(sandbox, "environment")["mode"] == "interrupt"
    finally:
        page.close()


@pytest.fixture(scope="module")
def server_without_sandbox_csp(runtime_built: None) -> Iterator[str]:
    """A misconfigured server: the sandbox frame's Content-Security-Policy is missing."""
    app = app_with_page_headers(False)

    @app.middleware("http")
    async def drop_csp(
        request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        response = await call_next(request)
        if request.url.path.startswith("/sandbox/"):
            del response.headers["Content-Security-Policy"]
        return response

    with running(app) as url:
        yield url


FETCH_OUT = """
from js import fetch
try:
    await fetch("{url}/reached")
    print("reached")
except Exception as error:
    print("refused", type(error).__name__)
"""


def test_a_server_that_drops_the_sandbox_csp_does_not_weaken_the_sandbox(
    engine: EngineBrowser, server_without_sandbox_csp: str
) -> None:
    """The SDK writes the frame's document itself, its policy in a <meta> tag, so a server that
    sends no CSP cannot give the worker the network: the request is still refused."""
    attacker = Attacker()
    threading.Thread(target=attacker.server.serve_forever, daemon=True).start()
    page, sdk = open_sdk_page(engine, server_without_sandbox_csp)
    try:
        sandbox = sdk.create(policy="off")  # the browser, not the import policy, must refuse
        result = sdk.run(sandbox, FETCH_OUT.format(url=attacker.url), timeoutMs=10_000)
        assert attacker.hits == []
        if lacks(engine.name, "blocked-fetch-settles"):
            assert result["outcome"] == "OUTCOME_DEADLINE_EXCEEDED", result
            return
        assert result["outcome"] == "OUTCOME_OK", result["error"]
        assert result["stdout"].startswith("refused"), result["stdout"]
        if not lacks(engine.name, "csp-events-in-workers"):
            kinds = [a["kind"] for a in result["audit"]["networkAttempts"]]
            assert "csp:connect-src" in kinds, kinds
    finally:
        page.close()
        attacker.server.shutdown()
