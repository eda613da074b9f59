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


class Exports:
    """Each variant's export, made the first time a test asks for it. The tests switch variants
    once per module when two pytest workers share the modules (tests/support/parallel.py), so
    a switch back finds its folder made; the folders are only read."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.tmp_path_factory = tmp_path_factory
        self.served: dict[str, Path] = {}

    def served_folder(self, variant: str) -> Path:
        """The folder the static host serves for `variant` ("root" or "sub-path")."""
        if variant not in self.served:
            top = self.tmp_path_factory.mktemp(f"static-{variant}")
            if variant == "root":
                self.served[variant] = export_with_test_pages(top / "site")
            else:
                folder: Path = top.joinpath(*SUB_PATH.strip("/").split("/"))
                folder.parent.mkdir(parents=True)
                export_with_test_pages(folder, base_path=SUB_PATH)
                self.served[variant] = top
        return self.served[variant]


@pytest.fixture(scope="session")
def static_exports(tmp_path_factory: pytest.TempPathFactory, runtime_built: None) -> Exports:
    return Exports(tmp_path_factory)


@pytest.fixture(scope="session", params=["root", "sub-path"])
def static_site(request: pytest.FixtureRequest, static_exports: Exports) -> Iterator[str]:
    with http_server(static_exports.served_folder(request.param)) as url:
        yield url + ("/" if request.param == "root" else SUB_PATH)


@pytest.fixture(scope="module")
def sdk(engine: EngineBrowser, static_site: str) -> Iterator[SdkPage]:
    """The SDK test page of the export; the isolation tests of tests/browser/sandbox use it too."""
    page = engine.new_page()
    page.goto(f"{static_site}test-pages/sdk-sandbox.html")
    page.wait_for_function("window.sdkReady === true", timeout=BOOT_TIMEOUT_MS)
    yield SdkPage(page, engine.name)
    page.close()
