"""`Agent.create({ transcript, replay: true })`: a conversation saved as JSON and restored into a
new sandbox has its variables (and the files its code wrote) again, through the SDK as served."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.sandbox.conftest import open_sdk_page

pytestmark = pytest.mark.browser

# One agent computes in a sandbox; its transcript goes through JSON (as the app's export does) to a
# second agent on a new sandbox, which replays it before answering.
RESTORE = """async () => {
  const call = (code) => [
    { tool_calls: [{ index: 0, id: "c1", type: "function",
      function: { name: "run_python", arguments: JSON.stringify({ code }) } }] },
    { finishReason: "tool_calls" },
  ];
  const slow = { timeoutMs: 120000 }; // pandas' first import, on a busy machine
  const scripted = (...replies) => async function* () { yield* replies.shift(); };
  const code = "import pandas as pd\\ntable = pd.DataFrame({'n': [1, 2, 3]})\\n" +
    "table.to_csv('table.csv')\\nprint(table['n'].sum())";
  const first = await wasmbox.Agent.create({
    sandbox: await wasmbox.Sandbox.create(slow),
    model: "scripted",
    chat: scripted(call(code), [{ content: "The sum is 6." }]),
    streaming: "never",
  });
  await first.ask("Sum n");
  const saved = JSON.parse(JSON.stringify(first.transcript));

  const sandbox = await wasmbox.Sandbox.create(slow);
  const before = await sandbox.execute("'table' in globals()");
  const second = await wasmbox.Agent.create({
    sandbox, model: "scripted", chat: scripted(), transcript: saved, replay: true,
  });
  const after = await sandbox.execute("print(table.n.sum(), len(open('table.csv').readlines()))");
  return {
    before: before.value["text/plain"],
    after: after.stdout.trim(),
    replayed: second.replayed.runs.map((run) => [run.callId, run.same, run.result.stdout.trim()]),
    stopped: second.replayed.stopped,
    turns: second.transcript.turns.length,
  };
}"""


def test_a_restored_conversation_has_its_variables_again(
    browser: Browser, isolated_server: str
) -> None:
    page, _ = open_sdk_page(browser, isolated_server)
    try:
        restored = page.evaluate(RESTORE)
    finally:
        page.close()
    assert restored["before"] == "False"
    assert restored["replayed"] == [["run_1", True, "6"]]
    assert restored["stopped"] is None
    assert restored["after"] == "6 4"
    assert restored["turns"] == 2  # replaying does not add to the transcript
