"""The refusal path: where the browser will not make the sandbox's opaque-origin frame, the SDK
refuses to start, at once, with IsolationUnavailable. A page whose Content-Security-Policy
enforces Trusted Types refuses the frame's document (a string assigned to `srcdoc`); the SDK
runs code nowhere else, so that page gets no sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.sandbox.conftest import BOOT_TIMEOUT_MS, SDK_PAGE, app_with_page_headers
from tests.support.engines import EngineBrowser, EnginePage
from tests.support.servers import running

pytestmark = pytest.mark.browser

CREATE = """async () => {
  try {
    const sandbox = await wasmbox.Sandbox.create();
    await sandbox.close();
    return { created: true };
  } catch (error) {
    return { created: false, type: error.type ?? null, errorName: error.errorName ?? null,
             message: String(error.message) };
  }
}"""


@pytest.fixture(scope="module")
def plain_server(runtime_built: None) -> Iterator[str]:
    """Without COOP/COEP: every engine starts a sandbox there (WebKitGTK does not under COEP)."""
    with running(app_with_page_headers(False)) as url:
        yield url


@pytest.fixture
def trusted_types_page(engine: EngineBrowser, plain_server: str) -> Iterator[EnginePage]:
    """The SDK's test page with Trusted Types enforced and no policy allowed."""
    page = engine.new_page()
    page.goto(f"{plain_server}{SDK_PAGE}?trusted-types")
    page.wait_for_function("window.sdkReady === true", timeout=BOOT_TIMEOUT_MS)
    yield page
    page.close()


def test_a_page_that_refuses_the_sandbox_frame_gets_isolation_unavailable(
    trusted_types_page: EnginePage,
) -> None:
    assert trusted_types_page.evaluate("typeof trustedTypes") == "object", "no Trusted Types here"
    refused: dict[str, Any] = trusted_types_page.evaluate(CREATE)
    assert refused["created"] is False
    assert refused["type"] == "start_failed", refused
    assert refused["errorName"] == "IsolationUnavailable", refused
    assert "Trusted Types" in refused["message"]
    assert trusted_types_page.evaluate("document.querySelectorAll('iframe').length") == 0
