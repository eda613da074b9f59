"""A package added with `wasmbox build --with` (a few-KB pure-Python wheel from PyPI): it imports
in the sandbox, `environment()` lists it, and the exported site runs it offline. Chromium
(Playwright's offline switch covers service workers). One build, for the module."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.support.static_host import export_with_test_pages, http_server
from wasm_runtime.cli import main

from .offline import wait_until_ready_offline

pytestmark = [pytest.mark.browser, pytest.mark.network]

REQUIREMENT = "inflection==0.5.1"
TIMEOUT_MS = 180_000
CODE = "import inflection\nprint(inflection.camelize('added_package'))"
USE = """async (code) => {
  const sandbox = await wasmbox.Sandbox.create();
  const result = await wasmbox.run(sandbox.id, code);
  const environment = await sandbox.environment();
  await sandbox.close();
  return [result.stdout || JSON.stringify(result.error), environment.packages.inflection ?? null];
}"""


@pytest.fixture(scope="module")
def runtime_with_inflection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runtime = tmp_path_factory.mktemp("added") / "runtime"
    assert main(["build", "--out", str(runtime), "--with", REQUIREMENT]) == 0
    return runtime


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, runtime_with_inflection: Path) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("added-site") / "site"
    export_with_test_pages(folder, runtime_dir=runtime_with_inflection)
    with http_server(folder) as url:
        yield url + "/"


def test_the_build_pins_what_it_added(runtime_with_inflection: Path) -> None:
    lock = (runtime_with_inflection / "added-packages.txt").read_text()
    assert f"{REQUIREMENT} --hash=sha256:" in lock
    manifest = json.loads((runtime_with_inflection / "manifest.json").read_text())
    assert manifest["packages"]["inflection"]["origin"] == "added"


def test_an_added_package_imports_and_is_listed(browser: Browser, site: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site}test-pages/sdk-sandbox.html")
        page.wait_for_function("window.sdkReady === true", timeout=TIMEOUT_MS)
        assert page.evaluate(USE, CODE) == ["AddedPackage\n", "0.5.1"]
    finally:
        context.close()


def run_embed_cell(page: Page) -> str:
    """The embed's last cell, given the code and a deadline no busy machine reaches."""
    output: str = page.evaluate(
        """async code => {
            const cell = document.getElementById("in-b");
            cell.shadowRoot.querySelector("textarea").value = code;
            cell.setAttribute("timeout", "600");
            const result = await cell.run();
            return result ? result.stdout || JSON.stringify(result.error) : "no result";
        }""",
        CODE,
    )
    return output


def test_the_exported_site_runs_it_offline(browser: Browser, site: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site}examples/embed.html")
        page.wait_for_function("customElements.get('wasmbox-cell') !== undefined")
        assert run_embed_cell(page) == "AddedPackage\n"  # its wheel is used once, online
        wait_until_ready_offline(page, ["inflection"], TIMEOUT_MS)

        context.set_offline(True)
        page.reload()
        page.wait_for_function("customElements.get('wasmbox-cell') !== undefined")
        assert run_embed_cell(page) == "AddedPackage\n"
    finally:
        context.close()
