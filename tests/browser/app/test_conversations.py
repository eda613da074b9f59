"""Conversations that last: a reload brings back the transcript, the files and the variables, so
"now plot those same numbers" works with no code run again; the list opens, renames and deletes
them. Each test starts with an empty browser profile."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.app.conftest import READY_TIMEOUT_MS, AppPage, ScriptedModel, final
from tests.support.fake_openai import tool_call_stream_reply

pytestmark = pytest.mark.browser

COMPUTE = (
    "numbers = [n * n for n in range(1, 8)]\n"
    "open('squares.txt', 'w').write(str(numbers))\nprint(numbers)"
)
PLOT = (
    "import matplotlib.pyplot as plt\n"
    "plt.plot(numbers, marker='o')\nplt.title('squares')\nprint(sum(numbers))"
)


def reload(app_page: AppPage) -> Page:
    page = app_page.page
    page.reload()
    page.get_by_text("Sandbox: ready").wait_for(timeout=READY_TIMEOUT_MS)
    return page


def address(page: Page, other_than: str = "") -> str:
    """The page's address once it names a saved conversation (other than `other_than`)."""
    page.wait_for_function(
        "old => location.hash.length > 1 && location.href !== old", arg=other_than
    )
    return page.url


def conversations(page: Page) -> Locator:
    return page.get_by_role("list", name="Conversations").get_by_role("listitem")


def test_plot_those_same_numbers_after_a_reload(
    app_page: AppPage, agent_app: str, model: ScriptedModel
) -> None:
    model.script(tool_call_stream_reply(COMPUTE), final("The squares are 1, 4, 9, 16, 25, 36, 49."))
    app_page.open(agent_app).ask("Compute the squares of 1 to 7")
    page = app_page.page
    saved_at = address(page)

    # Reloaded the moment the answer is shown, as a user may: the conversation is saved by then.
    page = reload(app_page)
    assert page.url == saved_at
    # The transcript, the files and the variables are back.
    expect(page.get_by_text("The squares are 1, 4, 9, 16, 25, 36, 49.")).to_be_visible()
    assert "[1, 4, 9, 16, 25, 36, 49]" in page.get_by_label("stdout").first.inner_text()
    page.get_by_label("Files in the sandbox").get_by_text("squares.txt").wait_for()
    restored = page.get_by_text("Restored from this browser")
    assert "numbers" in restored.inner_text() and "Not restored" not in restored.inner_text()
    current = conversations(page).filter(has=page.locator("[aria-current]"))
    assert current.get_by_role("button").first.inner_text() == "Compute the squares of 1 to 7"

    model.script(tool_call_stream_reply(PLOT), final("Here is the plot of those numbers."))
    app_page.ask("Now plot those same numbers")
    last = model.requests()[-1]
    system = last["messages"][0]["content"]
    assert "restored from storage" in system and "numbers" in system
    assert "could NOT be restored" not in system
    # The model saw the earlier turn, and the one run after the reload used the restored list.
    assert last["messages"][1] == {"role": "user", "content": "Compute the squares of 1 to 7"}
    plot = model.tool_results()[-1]
    assert plot["outcome"] == "OK", plot
    assert plot["stdout"].strip() == "140" and "image" in plot["images"]
    assert page.get_by_role("img").count() >= 1

    # The notebook has the restored turn and the new one, each code cell with its output.
    with page.expect_download() as download:
        page.get_by_role("button", name="Notebook (.ipynb)").click()
    notebook = json.loads(download.value.path().read_text())
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    assert [cell["source"] for cell in code] == [COMPUTE, PLOT]
    assert [cell["execution_count"] for cell in code] == [1, 2]
    assert "".join(code[0]["outputs"][0]["text"]).strip() == "[1, 4, 9, 16, 25, 36, 49]"
    assert any(o["output_type"] == "display_data" for o in code[1]["outputs"])


def console(app_page: AppPage, code: str) -> None:
    app_page.page.get_by_role("tab", name="Console").click()
    app_page.run_console(code)


def test_new_chat_and_reopen_keep_each_conversation_apart(
    app_page: AppPage, agent_app: str
) -> None:
    app_page.open(agent_app)
    console(app_page, "x = 5")
    page = app_page.page
    first = address(page)
    page.get_by_role("button", name="New chat").click()
    page.get_by_text("Sandbox: ready").wait_for(timeout=READY_TIMEOUT_MS)
    address(page, other_than=first)
    assert page.get_by_role("log").get_by_text("x = 5").count() == 0
    console(app_page, "print('x' in globals())")
    assert page.get_by_label("stdout").last.inner_text().strip() == "False"

    entry = conversations(page).filter(has_text="x = 5")
    assert "just now" in entry.inner_text() and (
        "bytes" in entry.inner_text() or "kB" in entry.inner_text()
    )
    entry.get_by_role("button", name="x = 5", exact=True).click()
    page.get_by_text("Restored from this browser").wait_for(timeout=READY_TIMEOUT_MS)
    assert page.url == first
    console(app_page, "print(x)")
    assert page.get_by_label("stdout").last.inner_text().strip() == "5"
    app_page.screenshot("conversations")


def test_rename_and_delete_from_the_list(app_page: AppPage, agent_app: str) -> None:
    app_page.open(agent_app)
    console(app_page, "a = 1")
    page = app_page.page
    page.get_by_role("button", name="New chat").click()
    page.get_by_text("Sandbox: ready").wait_for(timeout=READY_TIMEOUT_MS)
    console(app_page, "b = 2")

    # Renaming the one not open, and the open one.
    page.get_by_role("button", name="Rename a = 1").click()
    page.get_by_label("New title").fill("First")
    page.get_by_label("New title").press("Enter")
    conversations(page).get_by_role("button", name="First", exact=True).wait_for()
    page.get_by_role("button", name="Rename b = 2").click()
    page.get_by_label("New title").fill("Second")
    page.get_by_label("New title").press("Enter")
    conversations(page).get_by_role("button", name="Second", exact=True).wait_for()

    # Deleting asks first; Cancel keeps it.
    page.get_by_role("button", name="Delete First").click()
    page.get_by_role("group", name="Delete First?").get_by_role("button", name="Cancel").click()
    page.get_by_role("button", name="Delete First").click()
    page.get_by_role("group", name="Delete First?").get_by_role(
        "button", name="Delete", exact=True
    ).click()
    conversations(page).filter(has_text="First").wait_for(state="detached")

    page = reload(app_page)
    names = conversations(page).locator("button.link").all_inner_texts()
    assert names == ["Second"]
    console(app_page, "print(b)")
    assert page.get_by_label("stdout").last.inner_text().strip() == "2"

    # Deleting the open conversation opens a new, empty one.
    before = address(page)
    page.get_by_role("button", name="Delete Second").click()
    page.get_by_role("group", name="Delete Second?").get_by_role(
        "button", name="Delete", exact=True
    ).click()
    address(page, other_than=before)
    page.get_by_text("Sandbox: ready").wait_for(timeout=READY_TIMEOUT_MS)
    console(app_page, "print('b' in globals())")
    assert page.get_by_label("stdout").last.inner_text().strip() == "False"
    # Named after its first run; "Second" is gone.
    title = "print('b' in globals())"
    conversations(page).get_by_role("button", name=title, exact=True).wait_for()
    assert conversations(page).locator("button.link").all_inner_texts() == [title]
    assert app_page.dialogs == []


# An uncaught error in the worker, as a runtime failure would raise: the frame reports the worker
# lost. Thrown from a timer so it happens while the conversation's sandbox is idle.
THROW_IN_WORKER = "() => void setTimeout(() => { throw new Error('simulated failure'); }, 0)"


def test_a_sandbox_lost_while_idle_is_announced_with_what_came_back(
    app_page: AppPage, agent_app: str
) -> None:
    app_page.open(agent_app)
    console(app_page, "x = 41")
    page = app_page.page
    address(page)  # saved
    # The conversation's worker is the oldest one: the spare booted after it was taken.
    workers = page.workers
    assert workers, "the sandbox's worker is visible to the test"
    oldest = max(workers, key=lambda worker: float(worker.evaluate("performance.now()")))
    oldest.evaluate(THROW_IN_WORKER)

    alert = page.get_by_role("alert").filter(has_text="The sandbox stopped")
    alert.wait_for(timeout=READY_TIMEOUT_MS)
    assert "restarted from its last save: variables x" in alert.inner_text()
    console(app_page, "print(x + 1)")
    assert page.get_by_label("stdout").last.inner_text().strip() == "42"
