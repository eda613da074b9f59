"""The exported folder on a plain static host (`python -m http.server`, no headers), at the root
and under a sub-path. `static_site` is the URL of the export's folder, ending in "/"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# The exported app's tests drive the page and the fake model as the app's tests do.
from tests.browser.app.conftest import app_page, fake_llm, model  # noqa: F401
from tests.browser.sandbox.conftest import SdkPage
from tests.support.engines import EngineBrowser
from tests.support.static_host import export_with_test_pages, http_server

pytestmark = pytest.mark.browser

BOOT_TIMEOUT_MS = 120_000
SUB_PATH = "/docs/wasmbox/"


@pytest.fixture(scope="session", params=["root", "sub-path"])
def static_site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, runtime_built: None
) -> Iterator[str]:
    top = tmp_path_factory.mktemp(f"static-{request.param}")
    if request.param == "root":
        export_with_test_pages(top / "site")
        with http_server(top / "site") as url:
            yield url + "/"
    else:
        folder: Path = top.joinpath(*SUB_PATH.strip("/").split("/"))
        folder.parent.mkdir(parents=True)
        export_with_test_pages(folder, base_path=SUB_PATH)
        with http_server(top) as url:
            yield url + SUB_PATH


@pytest.fixture(scope="module")
def sdk(engine: EngineBrowser, static_site: str) -> Iterator[SdkPage]:
    """The SDK test page of the export; the isolation tests of tests/browser/sandbox use it too."""
    page = engine.new_page()
    page.goto(f"{static_site}test-pages/sdk-sandbox.html")
    page.wait_for_function("window.sdkReady === true", timeout=BOOT_TIMEOUT_MS)
    yield SdkPage(page, engine.name)
    page.close()
