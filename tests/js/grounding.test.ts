// The grounding check: the matcher on recorded transcripts, and the agent asking once, then recording.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { Agent, type AgentEvent } from "../../wasm_runtime/sdk/agent/agent.js";
import { claimsIn, groundingSources, ungroundedNumbers } from "../../wasm_runtime/sdk/agent/grounding.js";
import type { Transcript } from "../../wasm_runtime/sdk/agent/transcript.js";
import { okResult, RecordingSandbox, ScriptedChat, text, toolCall } from "./agent-support.js";

const DIR = new URL("../fixtures/transcripts/", import.meta.url);
const fixtures = readdirSync(DIR).filter((f) => f.endsWith(".json"));

/** The model's final text of a transcript's last turn. */
const finalText = (transcript: Transcript): string => {
  const parts = transcript.turns.at(-1)?.parts ?? [];
  const last = parts.at(-1);
  return last?.kind === "text" ? last.text : "";
};

test("there are recorded transcripts", () => assert.ok(fixtures.length >= 4));

for (const file of fixtures) {
  test(`grounding of ${file}`, () => {
    const { transcript, expectUngrounded } = JSON.parse(readFileSync(new URL(file, DIR), "utf8")) as {
      transcript: Transcript;
      expectUngrounded: string[];
    };
    assert.deepEqual(ungroundedNumbers(finalText(transcript), groundingSources(transcript)), expectUngrounded);
  });
}

test("formatting does not count: separators, percent and fraction, rounding to the shown digits", () => {
  const sources = ["1060\n0.5509355\n-20.967742\n3.14159\n"];
  for (const answer of ["1,060", "1060.0", "55.09 %", "55.1%", "0.551", "20.97", "-20.97 %", "3.14", "3.1416"])
    assert.deepEqual(ungroundedNumbers(answer, sources), [], answer);
  for (const answer of ["1061", "55.2 %", "3.15", "0.56", "21.5"])
    assert.deepEqual(ungroundedNumbers(answer, sources), [answer.trim()], answer);
});

test("single digits, code and identifiers are not claims", () => {
  const claims = claimsIn("Step 1: see `x = 1234`\n```python\nprint(5678)\n```\ncol_42 and x2 are 3 names, v1.2");
  assert.deepEqual(
    claims.map((c) => c.text),
    [],
  );
});

async function agentWith(chat: ScriptedChat, verify?: "numbers" | "off") {
  const sandbox = new RecordingSandbox();
  const agent = await Agent.create({ sandbox, model: "m", chat: chat.fn, system: "s", verify });
  return { agent, sandbox };
}

test("an answer with a number no run printed is sent back once, naming it; a computed answer then stands", async () => {
  const chat = new ScriptedChat(
    text("The mean is 0.0534."),
    toolCall("print(0.0534)"),
    text("The mean is 0.0534, as printed."),
  );
  const { agent, sandbox } = await agentWith(chat);
  const events: AgentEvent[] = [];
  const turn = await agent.ask("mean of 500 samples?", { onEvent: (e) => events.push(e) });
  const asked = chat.requests[1]?.messages.at(-1);
  assert.equal(asked?.role, "user");
  assert.match(String(asked?.content), /numbers that no run printed or returned: 0\.0534\./);
  assert.deepEqual(sandbox.ran, ["print(0.0534)"]);
  assert.equal(turn.finish, "answer");
  assert.equal(turn.ungrounded, undefined);
  assert.ok(!events.some((e) => e.type === "ungrounded"));
});

test("the request to compute quotes what the last successful run printed, for the model to copy", async () => {
  const chat = new ScriptedChat(toolCall("print(-20.97)"), text("The growth is 0.34."), text("It is -20.97."));
  const { agent } = await agentWith(chat);
  const turn = await agent.ask("growth?");
  const asked = String(chat.requests[2]?.messages.at(-1)?.content);
  assert.match(
    asked,
    /no run printed or returned: 0\.34\. .* The last run printed:\nran print\(-20\.97\)\nIf that answers/s,
  );
  assert.equal(turn.ungrounded, undefined);
});

test("an answer after a failed run is sent back once to be fixed; with verify off it stands", async () => {
  const chat = new ScriptedChat(
    toolCall("fail()"),
    text("It could not be done."),
    toolCall("print(7)"),
    text("It is 7."),
  );
  const { agent, sandbox } = await agentWith(chat);
  const turn = await agent.ask("x?");
  assert.match(
    String(chat.requests[2]?.messages.at(-1)?.content),
    /^Your last run failed: it ended as OUTCOME_FAILED\. Fix the program/,
  );
  assert.deepEqual(sandbox.ran, ["fail()", "print(7)"]);
  assert.deepEqual(turn.parts.at(-1), { kind: "text", text: "It is 7." });

  const off = new ScriptedChat(toolCall("fail()"), text("It could not be done."));
  const { agent: unchecked } = await agentWith(off, "off");
  assert.equal((await unchecked.ask("x?")).finish, "answer");
  assert.equal(off.requests.length, 2);
});

test("numbers still unproven after the one request are the turn's `ungrounded`", async () => {
  const chat = new ScriptedChat(text("The mean is 0.0534 of 512 values."), text("I am sure: 0.0534 of 512."));
  const { agent } = await agentWith(chat);
  const events: AgentEvent[] = [];
  const turn = await agent.ask("mean?", { onEvent: (e) => events.push(e) });
  assert.equal(chat.requests.length, 2);
  assert.deepEqual(turn.ungrounded, ["0.0534", "512"]);
  assert.deepEqual(
    events.filter((e) => e.type === "ungrounded"),
    [{ type: "ungrounded", numbers: ["0.0534", "512"] }],
  );
});

test("an answer that gives none of the printed result is asked once to state it, quoting the output", async () => {
  const chat = new ScriptedChat(
    toolCall("print(1234.5)"),
    text("The output shows the total for each customer."),
    text("Still, the output shows it."),
  );
  const { agent } = await agentWith(chat);
  const events: AgentEvent[] = [];
  const turn = await agent.ask("total?", { onEvent: (e) => events.push(e) });
  const asked = String(chat.requests[2]?.messages.at(-1)?.content);
  assert.match(asked, /^Your answer does not give the result\. The last run printed:\nran print\(1234\.5\)\n/);
  assert.equal(chat.requests.length, 3, "asked once: the second such answer stands");
  assert.equal(turn.finish, "answer");
  assert.ok(events.some((e) => e.type === "notice" && /none of the printed result/.test(e.text)));
});

test("an answer quoting a printed value, or after a run that printed no number, is not asked again", async () => {
  for (const [code, answer] of [
    ["print(1234.5)", "The total is 1,234.5."],
    ["plot()", "The histogram is shown above."],
  ] as const) {
    const chat = new ScriptedChat(toolCall(code), text(answer));
    const { agent } = await agentWith(chat);
    assert.equal((await agent.ask("x?")).finish, "answer");
    assert.equal(chat.requests.length, 2, answer);
  }
});

test("numbers from the user's message are grounded", async () => {
  const chat = new ScriptedChat(text("You said 12400 and 9800."));
  const { agent } = await agentWith(chat);
  const turn = await agent.ask("Sales 12400 then 9800.");
  assert.equal(chat.requests.length, 1);
  assert.equal(turn.ungrounded, undefined);
});

test('verify: "off" does not check answers', async () => {
  const chat = new ScriptedChat(text("The mean is 0.0534."));
  const { agent } = await agentWith(chat, "off");
  const turn = await agent.ask("mean?");
  assert.equal(chat.requests.length, 1);
  assert.equal(turn.ungrounded, undefined);
});

test("Agent.create refuses an unknown verify mode", async () => {
  await assert.rejects(
    Agent.create({ sandbox: new RecordingSandbox(), model: "m", chat: new ScriptedChat().fn, verify: "all" as "off" }),
    /verify must be "numbers" or "off"/,
  );
});

test("a run's value grounds numbers too", async () => {
  const sandbox = new RecordingSandbox();
  sandbox.execute = async (code) => {
    sandbox.ran.push(code);
    return { ...okResult(""), value: { "text/plain": "1060" } };
  };
  const chat = new ScriptedChat(toolCall("s"), text("The sum is 1,060."));
  const agent = await Agent.create({ sandbox, model: "m", chat: chat.fn, system: "s" });
  const turn = await agent.ask("sum?");
  assert.equal(turn.ungrounded, undefined);
  assert.equal(chat.requests.length, 2);
});
