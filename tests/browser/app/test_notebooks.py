"""Notebooks that open again: an exported .ipynb reopens and "Run all" reproduces it; hostile
notebooks stay inert; files that cannot be opened change nothing. (The drop path and a changed
output's mark are in test_engines.py, which runs in every engine.)"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import FilePayload, Page

from tests.browser.app.conftest import AppPage

pytestmark = pytest.mark.browser

SALES = b"region,n\nnorth,1\nsouth,2\neast,3\n"
CELLS = [
    "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df['n'].sum())",
    "df",
    "import matplotlib.pyplot as plt\nplt.plot(df['n'])\nplt.show()",
    "total_rows",  # fails as recorded: the replay goes on past it
    "df.to_csv('copy.csv')\nprint(len(pd.read_csv('copy.csv')), 'rows')",
]
# Drops a file on the page as a user's drag and drop does (the File is made in the page).
DROP = """([name, text, size]) => {
  const file = new File([size ? new Uint8Array(size) : text], name);
  const data = new DataTransfer();
  data.items.add(file);
  const drop = new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
  document.body.dispatchEvent(drop);
}"""


def payload(name: str, data: bytes) -> FilePayload:
    return {"name": name, "mimeType": "text/plain", "buffer": data}


def marks(page: Page) -> list[str]:
    found: list[str] = page.locator("#transcript .replay-mark").evaluate_all(
        "(ms) => ms.map((m) => m.className.replace('replay-mark ', ''))"
    )
    return found


def test_an_exported_notebook_reopens_and_run_all_reproduces_it(
    app_page: AppPage, console_app: str, tmp_path: Path
) -> None:
    app_page.open(f"{console_app}/?timeoutMs=120000")
    page = app_page.page
    page.get_by_label("Upload files").set_input_files(files=[payload("sales.csv", SALES)])
    page.get_by_text("Uploaded sales.csv").wait_for()
    for code in CELLS:
        app_page.run_console(code)
    with page.expect_download() as download:
        page.get_by_role("button", name="Notebook (.ipynb)").click()
    exported = tmp_path / "sales.ipynb"
    download.value.save_as(exported)

    page.get_by_label("Open notebook or transcript").set_input_files(exported)
    page.get_by_text("Opened sales.ipynb: 5 code cells").wait_for()
    # Shown as the live session showed it: stdout, the DataFrame's table, the plot, the error.
    assert page.get_by_label("stdout").first.inner_text().strip() == "6"
    assert page.locator(".html-output td").first.inner_text() == "north"
    assert page.locator("#transcript img.plot").count() == 1
    assert "NameError" in page.get_by_label("traceback").first.inner_text()
    conversations = page.get_by_role("list", name="Conversations").get_by_role("listitem")
    assert conversations.filter(has_text="sales.ipynb").count() == 1

    with app_page.finishing(180_000):
        page.get_by_role("button", name="Run all").click()
        prompt = page.get_by_role("dialog", name="Files this notebook used")
        prompt.wait_for()
        # The code's own copy.csv is not asked for: it writes it before reading it.
        assert prompt.locator("li").all_inner_texts() == ["sales.csv "]
        prompt.get_by_label("File for sales.csv").set_input_files(
            files=[payload("on-disk.csv", SALES)]
        )
        prompt.get_by_role("button", name="Upload and run all").click()
    assert marks(page) == ["same"] * 5
    assert page.get_by_text("Uploaded on-disk.csv to the sandbox as sales.csv.").is_visible()
    assert page.get_by_text(
        "5 of 5 cells ran in a new sandbox; every output is the same"
    ).is_visible()
    assert page.locator("#transcript img.plot").count() == 1
    app_page.screenshot("notebook-run-all")


HOSTILE_HTML = (
    "<script>alert('script')</script><a href=\"javascript:alert('link')\">link</a>"
    "<img src=x onerror=\"alert('onerror')\"><iframe src=\"javascript:alert('frame')\"></iframe>"
    "<b onmouseover=\"alert('hover')\">bold</b>"
)

HOSTILE_SVG = "<svg onload=\"alert('svg')\"><script>alert(1)</script></svg>"


def hostile_notebook() -> str:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(
            "# Hostile\n\n[click](javascript:alert('md-link')) "
            "<img src=x onerror=\"alert('md-img')\">\n\n" + HOSTILE_HTML
        ),
        nbformat.v4.new_code_cell(
            "html()",
            outputs=[
                nbformat.v4.new_output(
                    "display_data", data={"text/html": HOSTILE_HTML, "text/plain": "html"}
                ),
                nbformat.v4.new_output(
                    "execute_result",
                    data={"text/html": HOSTILE_HTML, "text/plain": "x"},
                    execution_count=1,
                ),
                nbformat.v4.new_output(
                    "display_data",
                    data={"image/svg+xml": HOSTILE_SVG},
                ),
                nbformat.v4.new_output(
                    "stream", name="stdout", text="<script>alert('out')</script>"
                ),
            ],
        ),
    ]
    text: str = nbformat.writes(notebook)
    return text


def test_a_hostile_notebook_shows_as_inert_text(app_page: AppPage, console_app: str) -> None:
    app_page.open(f"{console_app}/?timeoutMs=120000")
    page = app_page.page
    page.get_by_label("Open notebook or transcript").set_input_files(
        files=[payload("hostile.ipynb", hostile_notebook().encode())]
    )
    page.get_by_text("Opened hostile.ipynb").wait_for()
    assert page.get_by_role("heading", name="Hostile").is_visible()  # markdown is rendered
    assert page.get_by_label("stdout").inner_text() == "<script>alert('out')</script>"
    log = page.locator("#transcript")
    assert log.locator("script, iframe, [onerror], [onload], [onmouseover]").count() == 0
    assert log.locator("a[href^='javascript']").count() == 0
    page.locator("#transcript b", has_text="bold").first.hover()
    page.wait_for_timeout(500)  # give any injected handler a chance to fire
    assert app_page.dialogs == []
    assert app_page.requests.foreign() == []


def test_files_that_cannot_be_opened_change_nothing(app_page: AppPage, console_app: str) -> None:
    app_page.open(f"{console_app}/?timeoutMs=120000")
    page = app_page.page
    app_page.run_console("kept = 'still here'")
    old_notebook = json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": []})
    bad = [
        (["broken.ipynb", "{not json", None], "broken.ipynb cannot be opened: it is not JSON"),
        (["old.ipynb", old_notebook, None], "this notebook has nbformat 3; only nbformat 4"),
        # Made in the page rather than sent to it.
        (["huge.ipynb", "", 70_000_000], "huge.ipynb cannot be opened: it is 70.0 MB"),
    ]
    for args, error in bad:
        page.evaluate(DROP, args)
        page.get_by_role("alert").filter(has_text=error).wait_for()
    # The conversation is the one it was: its run is shown, its variables are there.
    assert page.get_by_role("list", name="Conversations").get_by_role("listitem").count() == 1
    app_page.run_console("print(kept)")
    assert page.get_by_label("stdout").last.inner_text().strip() == "still here"
