"""What cannot be restored is named in the resume report, and the agent's model is told."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from .conftest import create, flush, load_sdk, plain, resume, run

pytestmark = pytest.mark.browser

# A chat function that records the system prompt and answers in text, so no model is needed.
ASK = """async id => {
    const sandbox = wasmbox.Sandbox.get(id);
    const seen = [];
    async function* chat(request) {
        seen.push(request.messages[0].content);
        yield { content: "ok" };
    }
    const options = { sandbox, model: "scripted", chat, streaming: "never" };
    const agent = await wasmbox.Agent.create(options);
    await agent.ask("what is left?");
    return seen[0];
}"""


def test_unpicklable_variable_is_named_and_the_model_told(page: Page, isolated_server: str) -> None:
    sandbox_id = create(page)
    run(page, sandbox_id, "total = 10\nrows = (i * i for i in range(5))")
    flush(page, sandbox_id)
    page.reload()
    load_sdk(page, isolated_server)
    report = resume(page, sandbox_id)
    assert "total" in report["restored"]
    names = {v["name"]: v["reason"] for v in report["notRestored"]}
    assert list(names) == ["rows"] and "generator" in names["rows"]
    assert plain(page, sandbox_id, "total") == "10"
    missing = page.evaluate("id => wasmbox.Sandbox.get(id).execute('rows')", sandbox_id)
    assert missing["error"]["name"] == "NameError"
    prompt = page.evaluate(ASK, sandbox_id)
    assert "restored from storage" in prompt
    assert "Variables restored: total." in prompt
    assert "rows (" in prompt and "recompute them" in prompt
