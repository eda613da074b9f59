"""The page under stress: deadlines, hostile output, no model configured, exports, fenced calls."""

from __future__ import annotations

import json

import nbformat
import pytest
from playwright.sync_api import expect

from tests.browser.app.conftest import AppPage, ScriptedModel, final
from tests.support.fake_openai import reported_stdout, stream_reply, tool_call_stream_reply

pytestmark = pytest.mark.browser


def test_timeout_reaches_the_model_and_the_page_stays_responsive(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(tool_call_stream_reply("while True: pass"), final("It timed out."))
    app_page.open(f"{agent_app}/?timeoutMs=2000").ask("Loop forever")

    result = model.tool_results()[0]
    assert result["outcome"] == "DEADLINE_EXCEEDED"
    # Cross-origin isolated: interrupted, variables kept. The run arrives while the spare is
    # still preloading numpy and pandas, which it no longer waits for.
    assert result["stateLost"] is False
    assert app_page.page.get_by_text("deadline exceeded").first.is_visible()
    # The page is still in control: it takes input and runs the next cell in the same sandbox.
    app_page.page.get_by_role("tab", name="Console").click()
    app_page.run_console("print('still here')")
    assert app_page.page.get_by_label("stdout").last.inner_text().strip() == "still here"


def test_hostile_output_stays_inert(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    code = (
        "import pandas as pd\nprint('<img src=x onerror=alert(1)>')\n"
        "pd.DataFrame({'a': ['<script>alert(2)</script>', '<img src=x onerror=alert(3)>']})"
    )
    leak = f"{agent_app.replace('127.0.0.1', 'localhost')}/leak.png"  # another origin
    answer = f"Done. ![chart]({leak}) [click](javascript:alert(4)) <img src=x onerror=alert(5)>"
    model.script(tool_call_stream_reply(code), final(answer))
    app_page.open(agent_app).ask("Show me something")

    page = app_page.page
    assert "<img src=x onerror=alert(1)>" in page.get_by_label("stdout").first.inner_text()
    assert page.locator(".html-output td").first.inner_text() == "<script>alert(2)</script>"
    assert page.locator("#transcript script").count() == 0
    assert page.locator("#transcript [onerror]").count() == 0
    assert page.locator("#transcript a[href^='javascript']").count() == 0
    page.wait_for_timeout(500)  # give any injected handler a chance to fire
    assert app_page.dialogs == []
    assert app_page.requests.foreign() == []
    app_page.screenshot("hostile-output")


def test_console_works_without_a_model(app_page: AppPage, console_app: str) -> None:
    app_page.open(console_app)
    page = app_page.page
    assert "OPENAI_BASE_URL" in page.get_by_role("note").inner_text()
    assert page.get_by_label("Message").is_hidden()
    app_page.run_console("x = 6 * 7\nprint(x)")
    app_page.run_console("x + 1")
    assert page.get_by_label("stdout").first.inner_text().strip() == "42"
    assert page.locator(".result").nth(1).inner_text().strip().endswith("43")
    app_page.screenshot("console")


def test_notebook_export_validates(app_page: AppPage, agent_app: str, model: ScriptedModel) -> None:
    model.script(
        tool_call_stream_reply(
            "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nprint('plotted')"
        ),
        tool_call_stream_reply("np.zeros(2)"),
        final("All done."),
    )
    app_page.open(agent_app).ask("Make a plot, then use numpy without importing it")
    with app_page.page.expect_download() as download:
        app_page.page.get_by_role("button", name="Notebook (.ipynb)").click()
    notebook = nbformat.reads(download.value.path().read_text(), as_version=4)
    nbformat.validate(notebook)

    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert [c.source.splitlines()[-1] for c in code_cells] == ["print('plotted')", "np.zeros(2)"]
    outputs = [o.output_type for o in code_cells[0].outputs]
    assert "stream" in outputs and "display_data" in outputs
    error = code_cells[1].outputs[-1]
    assert error.ename == "NameError"
    # The kernel's repair hint is kept: last line of the traceback, and in the cell's metadata.
    assert error.traceback[-1] == "Hint: Import it first: import numpy as np " + (
        "(each run keeps the variables and imports of earlier runs)."
    )
    assert code_cells[1].metadata["wasmbox"]["hint"].startswith("Import it first")


def test_transcript_export_has_gemini_style_parts(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(tool_call_stream_reply("print(2 + 2)"), final("Four."))
    app_page.open(agent_app).ask("2+2?")
    transcript = app_page.transcript()
    kinds = [part["kind"] for turn in transcript["turns"] for part in turn["parts"]]
    assert kinds == ["text", "executable_code", "code_execution_result", "text"]
    result = transcript["turns"][1]["parts"][1]
    assert result["outcome"] == "OUTCOME_OK" and result["output"].strip() == "4"


def test_fenced_json_tool_call_from_a_small_model(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    call = json.dumps({"name": "run_python", "arguments": {"code": "print(6 * 7)"}})
    model.script(stream_reply(["I'll compute it.\n```json\n", call, "\n```"]), final("It is 42."))
    app_page.open(agent_app).ask("What is six times seven?")
    follow_up = model.requests()[-1]["messages"][-1]
    assert follow_up["role"] == "user"
    assert reported_stdout(follow_up["content"]) == "42"
    assert app_page.page.get_by_text("It is 42.").is_visible()


def test_stop_cancels_the_model_stream(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.fake.disconnected.clear()
    model.script(stream_reply(["slow "] * 200, chunk_delay_s=0.05))
    app_page.open(agent_app)
    with app_page.finishing(30_000):
        app_page.page.get_by_label("Message").fill("Tell me a long story")
        app_page.page.get_by_label("Message").press("Enter")
        app_page.page.get_by_text("slow slow").wait_for()
        app_page.page.keyboard.press("Escape")
    assert model.fake.disconnected.wait(10)
    assert app_page.page.get_by_text("Stopped.").is_visible()


def test_stop_interrupts_running_code(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(tool_call_stream_reply("x = 1\nwhile True: pass"), final("unreachable"))
    app_page.open(agent_app)
    page = app_page.page
    with app_page.finishing(30_000):
        page.get_by_label("Message").fill("Spin")
        page.get_by_label("Message").press("Enter")
        page.get_by_label("running").wait_for()
        page.get_by_role("button", name="Stop").click()
    assert page.get_by_text("cancelled").first.is_visible()
    assert page.get_by_text("Stopped.").is_visible()
    assert len(model.requests()) == 1  # the model was not asked to go on after a stop


def test_files_the_code_writes_download_as_opaque_bytes(
    app_page: AppPage, console_app: str
) -> None:
    app_page.open(console_app)
    app_page.run_console(
        "import pandas as pd\n"
        "pd.DataFrame({'x': [1, 2]}).to_csv('report.csv', index=False)\n"
        "open('page.html', 'w').write('<script>alert(1)</script>')"
    )
    page = app_page.page
    with page.expect_download() as csv_download:
        page.get_by_role("list", name="files produced").get_by_text("report.csv").click()
    assert csv_download.value.suggested_filename == "report.csv"
    assert csv_download.value.path().read_text() == "x\n1\n2\n"

    with page.expect_download() as html_download:
        page.get_by_role("list", name="files produced").get_by_text("page.html").click()
    # Saved, never rendered: the script stays inert text on disk and no dialog opened.
    assert html_download.value.path().read_text() == "<script>alert(1)</script>"
    assert app_page.dialogs == []


def test_a_listing_over_its_cap_is_shown_and_the_page_goes_on(
    app_page: AppPage, console_app: str
) -> None:
    """The page lists the files after every activity: a listing the host refuses (more than
    10,000 files) is named in the Files panel, and the page takes the next run. The run's
    result shows a summary of its 10,001 files, not a row each."""
    app_page.open(console_app)
    app_page.run_console(
        "import os\nos.mkdir('many')\nfor i in range(10_001):\n    open(f'many/{i}', 'w').close()"
    )
    # The run's result lists a few of its files and counts the rest (a result carries at most
    # 10,000): no row for each.
    produced = app_page.page.get_by_role("list", name="files produced").last
    assert produced.get_by_role("listitem").count() == 51
    assert produced.get_by_role("listitem").last.inner_text() == "… and 9,950 more (see Files)"
    alert = app_page.page.get_by_label("Files in the sandbox").get_by_role("alert")
    alert.wait_for(timeout=60_000)
    assert "Files cannot be listed" in alert.inner_text()
    assert "10000" in alert.inner_text().replace(",", "")
    app_page.run_console(
        "import shutil\nshutil.rmtree('many')\n"
        "open('kept.txt', 'w').write('x')\nprint('still here')"
    )
    assert app_page.page.get_by_label("stdout").last.inner_text().strip() == "still here"
    alert.wait_for(state="detached", timeout=60_000)
    # An unchanged listing leaves the panel's rows as they are; a changed one is shown.
    panel = app_page.page.get_by_role("list", name="Files in the sandbox")
    row = panel.get_by_role("listitem").filter(has_text="kept.txt")
    expect(row).to_have_text("⬇ kept.txt 1 bytes")
    row.evaluate("(li) => { li.dataset.seen = 'yes'; }")
    app_page.run_console("print(1)")
    expect(panel.locator("li[data-seen=yes]")).to_have_count(1)
    app_page.run_console("open('kept.txt', 'w').write('xyz')")
    expect(row).to_have_text("⬇ kept.txt 3 bytes")
    expect(panel.locator("li[data-seen=yes]")).to_have_count(0)
