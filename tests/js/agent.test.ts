// The agent loop without a browser: a scripted chat function and a recording sandbox.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Agent, type AgentEvent } from "../../wasm_runtime/sdk/agent/agent.js";
import { ChatError, type ChatDelta, type ChatRequest } from "../../wasm_runtime/sdk/agent/chat-types.js";
import { RecordingSandbox, ScriptedChat, text, toolCall } from "./agent-support.js";

async function agentWith(
  chat: ScriptedChat,
  options: { maxSteps?: number; streaming?: "auto" | "always" | "never"; codeBlocks?: "run" | "ask" } = {},
) {
  const sandbox = new RecordingSandbox();
  // The double runs nothing, so its answers' numbers are never printed: grounding has its own tests.
  const agent = await Agent.create({
    sandbox,
    model: "m1",
    chat: chat.fn,
    system: "be brief",
    verify: "off",
    ...options,
  });
  return { agent, sandbox };
}

const kinds = (parts: { kind: string }[]): string[] => parts.map((p) => p.kind);

test("a text answer is the turn's one part", async () => {
  const chat = new ScriptedChat(text("Hel", "lo."));
  const { agent } = await agentWith(chat);
  const turn = await agent.ask("hi");
  assert.deepEqual(turn.parts, [{ kind: "text", text: "Hello." }]);
  assert.equal(turn.finish, "answer");
  assert.equal(chat.requests[0]?.stream, true);
  assert.deepEqual(chat.requests[0]?.messages.slice(0, 2), [
    { role: "system", content: "be brief" },
    { role: "user", content: "hi" },
  ]);
});

test("a tool call runs, its result goes back as a tool message, then the answer", async () => {
  const chat = new ScriptedChat(toolCall("print(1)"), text("It printed 1."));
  const { agent, sandbox } = await agentWith(chat);
  const events: AgentEvent["type"][] = [];
  const turn = await agent.ask("go", { onEvent: (e) => events.push(e.type) });
  assert.deepEqual(sandbox.ran, ["print(1)"]);
  assert.deepEqual(kinds(turn.parts), ["executable_code", "code_execution_result", "text"]);
  const sent = chat.requests[1]?.messages ?? [];
  const assistant = sent[2] as { tool_calls: { id: string }[] };
  const tool = sent[3] as { role: string; tool_call_id: string; content: string };
  assert.equal(tool.role, "tool");
  assert.equal(tool.tool_call_id, assistant.tool_calls[0]?.id);
  assert.equal(JSON.parse(tool.content).stdout, "ran print(1)\n");
  assert.deepEqual(events, ["turn", "turn", "call-arguments", "call-arguments", "code", "output", "result", "text"]);
});

test("a native call's arguments are told as they stream, before its code runs", async () => {
  const chat = new ScriptedChat(toolCall("import plotly.express as px"), text("Done."));
  const { agent } = await agentWith(chat);
  const events: AgentEvent[] = [];
  await agent.ask("go", { onEvent: (e) => events.push(e) });
  const pieces = events.flatMap((e) => (e.type === "call-arguments" ? [e.text] : []));
  assert.equal(pieces.length, 2); // the two deltas the call came in
  assert.equal(pieces.join(""), JSON.stringify({ code: "import plotly.express as px" }));
  const code = events.findIndex((e) => e.type === "code");
  assert.ok(events.findLastIndex((e) => e.type === "call-arguments") < code);
});

test("several tool calls in one turn run in order, each answered by its own id", async () => {
  const both: ChatDelta[] = [...toolCall("a = 1", "call_a", 0).slice(0, 2), ...toolCall("print(a)", "call_b", 1)];
  const chat = new ScriptedChat(both, text("Done."));
  const { agent, sandbox } = await agentWith(chat);
  await agent.ask("two");
  assert.deepEqual(sandbox.ran, ["a = 1", "print(a)"]);
  const sent = chat.requests[1]?.messages ?? [];
  const ids = (sent[2] as { tool_calls: { id: string }[] }).tool_calls.map((c) => c.id);
  assert.equal(new Set(ids).size, 2);
  assert.deepEqual(
    sent.slice(3).map((m) => (m as { tool_call_id: string }).tool_call_id),
    ids,
  );
});

test("the step limit ends a turn that keeps calling tools", async () => {
  const chat = new ScriptedChat(toolCall("1"), toolCall("2"), toolCall("3"));
  const { agent, sandbox } = await agentWith(chat, { maxSteps: 2 });
  const events: AgentEvent[] = [];
  const turn = await agent.ask("loop", { onEvent: (e) => events.push(e) });
  assert.equal(turn.finish, "step-limit");
  assert.deepEqual(sandbox.ran, ["1", "2"]);
  assert.equal(chat.requests.length, 2);
  assert.deepEqual(events.at(-1), { type: "step-limit", steps: 2 });
});

test("a malformed call is not run: the model is told why and the page is shown it", async () => {
  const bad: ChatDelta[] = [
    { tool_calls: [{ index: 0, id: "c", function: { name: "run_python", arguments: '{"code": "print(1)' } }] },
    { finishReason: "tool_calls" },
  ];
  const chat = new ScriptedChat(bad, text("Sorry."));
  const { agent, sandbox } = await agentWith(chat);
  const problems: string[] = [];
  await agent.ask("x", { onEvent: (e) => e.type === "invalid-call" && problems.push(e.problem) });
  assert.deepEqual(sandbox.ran, []);
  assert.deepEqual(problems, ["its arguments are not valid JSON"]);
  const tool = chat.requests[1]?.messages[3] as { content: string };
  assert.equal(JSON.parse(tool.content).outcome, "INVALID_CALL");
});

test("a fenced-JSON call from a small model runs, and the result comes back as the user", async () => {
  const call = JSON.stringify({ name: "run_python", arguments: { code: "print(6 * 7)" } });
  const chat = new ScriptedChat(text("I'll compute it.\n```json\n", call, "\n```"), text("42."));
  const { agent, sandbox } = await agentWith(chat);
  const turn = await agent.ask("6*7?");
  assert.deepEqual(sandbox.ran, ["print(6 * 7)"]);
  const follow = chat.requests[1]?.messages.at(-1) as { role: string; content: string };
  assert.equal(follow.role, "user");
  assert.match(follow.content, /^Result of run_python:\n/);
  assert.equal(turn.finish, "answer");
});

test("a call echoed as text right after it worked narrates that run: it is the answer, not run again", async () => {
  const call = JSON.stringify({ name: "run_python", arguments: { code: "plot()" } });
  const echo = `The plot is shown. The result of run_python is:\n\`\`\`json\n${call}\n\`\`\``;
  const chat = new ScriptedChat(text("```json\n", call, "\n```"), text(echo));
  const { agent, sandbox } = await agentWith(chat);
  const notices: string[] = [];
  const turn = await agent.ask("plot it", { onEvent: (e) => e.type === "notice" && notices.push(e.text) });
  assert.deepEqual(sandbox.ran, ["plot()"]);
  assert.equal(chat.requests.length, 2);
  assert.equal(turn.finish, "answer");
  assert.match(notices.join(), /just worked; not run again/);
});

test("a tool call repeating the run that just worked is answered without running it", async () => {
  const chat = new ScriptedChat(toolCall("plot()"), toolCall("plot()", "call_y"), text("Here is the plot."));
  const { agent, sandbox } = await agentWith(chat);
  const turn = await agent.ask("plot it");
  assert.deepEqual(sandbox.ran, ["plot()"]);
  const told = chat.requests[2]?.messages.at(-1) as { role: string; content: string };
  assert.equal(told.role, "tool");
  assert.match(told.content, /^Not run again: this is the program that just ran and worked/);
  assert.deepEqual(turn.parts.at(-1), { kind: "text", text: "Here is the plot." });
});

test("the same program after another run, or after a failure, runs again", async () => {
  const block = "```python\nfail()\n```";
  const chat = new ScriptedChat(
    toolCall("x = 1"),
    toolCall("x += 1"),
    toolCall("x = 1"),
    text(block),
    toolCall("fail()"),
    text("Done."),
  );
  const { agent, sandbox } = await agentWith(chat);
  await agent.ask("go");
  assert.deepEqual(sandbox.ran, ["x = 1", "x += 1", "x = 1", "fail()", "fail()"]);
});

test("aborting a running call ends ask with the abort and asks the model nothing more", async () => {
  const chat = new ScriptedChat(toolCall("hang"), text("unreachable"));
  const { agent } = await agentWith(chat);
  const controller = new AbortController();
  const turn = agent.ask("spin", {
    signal: controller.signal,
    onEvent: (e) => e.type === "code" && setTimeout(() => controller.abort(), 10),
  });
  await assert.rejects(turn, { name: "AbortError" });
  assert.equal(chat.requests.length, 1);
  assert.equal(agent.transcript.turns.at(-1)?.finish, "stopped");
});

test("aborting the model's stream ends ask with the abort", async () => {
  const slow = async function* (_r: unknown, signal: AbortSignal): AsyncGenerator<ChatDelta> {
    yield { content: "thinking " };
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    signal.throwIfAborted();
  };
  const chat = new ScriptedChat(slow);
  const { agent } = await agentWith(chat);
  const controller = new AbortController();
  const turn = agent.ask("x", { signal: controller.signal, onEvent: (e) => e.type === "text" && controller.abort() });
  await assert.rejects(turn, { name: "AbortError" });
});

const emptyStream = async function* (): AsyncGenerator<ChatDelta> {
  yield* [];
  throw new ChatError("empty-stream", "the LLM server sent an empty stream");
};

test("an empty stream with tools is asked again without streaming, and the session remembers", async () => {
  const chat = new ScriptedChat(emptyStream, toolCall("print(2)"), text("Two."), text("Again."));
  const { agent, sandbox } = await agentWith(chat);
  const notices: string[] = [];
  const turn = await agent.ask("x", { onEvent: (e) => e.type === "notice" && notices.push(e.text) });
  assert.deepEqual(
    chat.requests.map((r) => r.stream),
    [true, false, false],
  );
  assert.deepEqual(sandbox.ran, ["print(2)"]);
  assert.equal(turn.finish, "answer");
  assert.match(notices[0] ?? "", /without streaming/);
  assert.equal(agent.streams(), false);
  await agent.ask("y");
  assert.equal(chat.requests.at(-1)?.stream, false);
});

test("the proxy's upstream_malformed answer to a stream also falls back", async () => {
  const refused = async function* (): AsyncGenerator<ChatDelta> {
    yield* [];
    throw new ChatError("http", "the LLM server sent an empty stream", 502, "upstream_malformed");
  };
  const chat = new ScriptedChat(refused, text("Fine."));
  const { agent } = await agentWith(chat);
  assert.equal((await agent.ask("x")).finish, "answer");
  assert.deepEqual(
    chat.requests.map((r) => r.stream),
    [true, false],
  );
});

test("a stream that finished with nothing in it is asked again without streaming", async () => {
  const chat = new ScriptedChat([{ content: "" }, { finishReason: "stop" }], text("Here."));
  const { agent } = await agentWith(chat);
  await agent.ask("x");
  assert.deepEqual(
    chat.requests.map((r) => r.stream),
    [true, false],
  );
});

test("an empty reply is an error, never an answer", async () => {
  const chat = new ScriptedChat([{ content: "  " }, { finishReason: "stop" }]);
  const { agent } = await agentWith(chat, { streaming: "never" });
  await assert.rejects(agent.ask("x"), (e: ChatError) => e.type === "empty-reply" && /nothing/.test(e.hint));
  assert.equal(agent.transcript.turns.at(-1)?.finish, "error");
});

test('streaming "always" does not fall back, and shows the server\'s failure', async () => {
  const chat = new ScriptedChat(emptyStream);
  const { agent } = await agentWith(chat, { streaming: "always" });
  await assert.rejects(agent.ask("x"), { type: "empty-stream" });
  assert.equal(chat.requests.length, 1);
});

test("an HTTP error is not retried", async () => {
  const refused = async function* (): AsyncGenerator<ChatDelta> {
    yield* [];
    throw new ChatError("http", "upstream says no", 401, "unauthorized");
  };
  const chat = new ScriptedChat(refused);
  const { agent } = await agentWith(chat);
  await assert.rejects(agent.ask("x"), (e: ChatError) => e.status === 401 && /API key/.test(e.hint));
  assert.equal(chat.requests.length, 1);
});

test("a model switch takes effect at the next message and is recorded", async () => {
  const chat = new ScriptedChat(text("one"), text("two"));
  const { agent } = await agentWith(chat);
  await agent.ask("first");
  agent.model = "m2";
  const events: AgentEvent[] = [];
  const turn = await agent.ask("second", { onEvent: (e) => events.push(e) });
  assert.deepEqual(
    chat.requests.map((r) => r.model),
    ["m1", "m2"],
  );
  assert.equal(turn.model, "m2");
  assert.deepEqual(
    agent.transcript.turns.map((t) => t.model ?? null),
    [null, "m1", null, "m2"],
  );
  assert.deepEqual(
    events.find((e) => e.type === "model"),
    { type: "model", model: "m2", previous: "m1" },
  );
});

test('codeBlocks "ask": a python block before any run is asked for as a call, once; it is never run', async () => {
  const block = "Here:\n```python\nprint(3)\n```";
  const chat = new ScriptedChat(text(block), text(block));
  const { agent, sandbox } = await agentWith(chat, { codeBlocks: "ask" });
  const turn = await agent.ask("x");
  assert.deepEqual(sandbox.ran, []);
  assert.equal(chat.requests.length, 2);
  assert.match((chat.requests[1]?.messages.at(-1) as { content: string }).content, /did not call the run_python tool/);
  assert.doesNotMatch(String(chat.requests[0]?.messages[0]?.content), /```python/);
  assert.equal(turn.finish, "answer");
});

test("a python block is run as the model's program; its result goes back as the user's message", async () => {
  const chat = new ScriptedChat(
    text("First:\n```python\ndef f():\n    return 3\n```\nthen\n```py\nprint(f())\n```\nThe output should be 4."),
    text("It printed 3."),
  );
  const { agent, sandbox } = await agentWith(chat);
  const events: AgentEvent[] = [];
  const turn = await agent.ask("x", { onEvent: (e) => events.push(e) });
  assert.deepEqual(sandbox.ran, ["def f():\n    return 3\n\nprint(f())"]);
  const told = String(chat.requests[1]?.messages.at(-1)?.content);
  assert.match(told, /^Result of your python block:\n/);
  // The guessed output after the blocks is not sent back: the model reads the real one only.
  assert.equal(
    chat.requests[1]?.messages[2]?.content,
    "First:\n```python\ndef f():\n    return 3\n```\nthen\n```py\nprint(f())\n```",
  );
  assert.match(String(turn.parts.find((p) => p.kind === "text")?.text), /The output should be 4\./);
  // In plain text, not JSON: what was printed reads as printed.
  assert.equal(told, "Result of your python block:\noutcome: OK\nstdout:\nran def f():\n    return 3\n\nprint(f())");
  assert.deepEqual(
    events.filter((e) => e.type === "code").map((e) => (e as { form: string }).form),
    ["bare-python"],
  );
  assert.equal(turn.finish, "answer");
});

test("a python block repeating code that ran explains it: it is the answer; new code runs", async () => {
  const chat = new ScriptedChat(
    toolCall("print(1)"),
    text("Fixed:\n```python\nprint(2)\n```"),
    text("I ran:\n```python\nprint(2)\n```\nIt printed 2."),
  );
  const { agent, sandbox } = await agentWith(chat);
  const turn = await agent.ask("x");
  assert.deepEqual(sandbox.ran, ["print(1)", "print(2)"]);
  assert.equal(chat.requests.length, 3);
  assert.equal(turn.finish, "answer");
});

test("a python block repeating a program that failed is sent back to be fixed, not taken as the answer", async () => {
  const block = "```python\nfail()\n```";
  const chat = new ScriptedChat(text(block), text(block), text("```python\nprint(5)\n```"), text("It is 5."));
  const { agent, sandbox } = await agentWith(chat);
  const turn = await agent.ask("x");
  assert.deepEqual(sandbox.ran, ["fail()", "print(5)"]);
  assert.match(
    String(chat.requests[2]?.messages.at(-1)?.content),
    /^That program already ran in this message and failed/,
  );
  assert.deepEqual(turn.parts.at(-1), { kind: "text", text: "It is 5." });
});

test("a python block repeating a program stopped at its deadline runs again: the code was not at fault", async () => {
  const block = "```python\nslow()\n```";
  const chat = new ScriptedChat(text(block), text(block), text("It took too long."));
  const { agent, sandbox } = await agentWith(chat);
  await agent.ask("x");
  assert.deepEqual(sandbox.ran, ["slow()", "slow()"]);
});

test("the prompt tells the model its python blocks run, with an example in that form", async () => {
  const chat = new ScriptedChat(text("ok"));
  const agent = await Agent.create({ sandbox: new RecordingSandbox(), model: "m1", chat: chat.fn, verify: "off" });
  await agent.ask("x");
  const system = String(chat.requests[0]?.messages[0]?.content);
  assert.match(system, /one ```python code block \(or call run_python with it\): it is run/);
  assert.match(system, /You write:\n```python\nwords = /);
  await assert.rejects(
    Agent.create({ sandbox: new RecordingSandbox(), model: "m1", chat: chat.fn, codeBlocks: "yes" as "run" }),
    /codeBlocks must be "run" or "ask"/,
  );
});

test("tool-call ids the server reuses across turns are replaced by unique ones", async () => {
  const chat = new ScriptedChat(toolCall("1", "0"), toolCall("2", "0"), text("ok"));
  const { agent } = await agentWith(chat);
  await agent.ask("x");
  const ids = (chat.requests[2]?.messages ?? []).flatMap((m) =>
    m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.id) : m.role === "tool" ? [m.tool_call_id] : [],
  );
  assert.equal(ids.length, 4);
  assert.equal(new Set(ids).size, 2);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9]{9}$/); // Mistral's templates insist on nine
});

test("ask refuses a second message while one is answered", async () => {
  const chat = new ScriptedChat(toolCall("hang"));
  const { agent } = await agentWith(chat);
  const controller = new AbortController();
  const first = agent.ask("a", { signal: controller.signal });
  await assert.rejects(agent.ask("b"), /already answering/);
  controller.abort();
  await assert.rejects(first);
});

test("Agent.create checks its options", async () => {
  const sandbox = new RecordingSandbox();
  await assert.rejects(Agent.create({ sandbox, model: "m", chat: {} as never }), /chat/);
  await assert.rejects(Agent.create({ sandbox, model: "", chat: { baseUrl: "/api" } }), /model/);
  await assert.rejects(Agent.create({ sandbox, model: "m", chat: { baseUrl: "/api" }, maxSteps: 0 }), /maxSteps/);
});

test('a server that refuses content: null beside tool calls (Ollama) is sent "" from then on', async () => {
  const ollamaLike = (reply: ChatDelta[]) =>
    async function* (request: ChatRequest): AsyncGenerator<ChatDelta> {
      if (request.messages.some((m) => m.role === "assistant" && m.content === null)) {
        throw new ChatError("http", "invalid message content type: <nil>", 400);
      }
      yield* reply;
    };
  const chat = new ScriptedChat(
    toolCall("1"),
    ollamaLike(toolCall("2")),
    ollamaLike(toolCall("2")),
    ollamaLike(text("ok")),
  );
  const { agent, sandbox } = await agentWith(chat);
  assert.equal((await agent.ask("x")).finish, "answer");
  assert.deepEqual(sandbox.ran, ["1", "2"]);
  const assistants = chat.requests.at(-1)?.messages.filter((m) => m.role === "assistant") ?? [];
  assert.deepEqual(
    assistants.map((m) => m.content),
    ["", ""],
  );
  assert.equal(chat.requests.length, 4);
});

test("llama-cpp-python's 500 for content: null beside tool calls, through the proxy, is answered the same way", async () => {
  const llamaCppLike = (reply: ChatDelta[]) =>
    async function* (request: ChatRequest): AsyncGenerator<ChatDelta> {
      if (request.messages.some((m) => m.role === "assistant" && m.content === null)) {
        throw new ChatError("http", "the LLM server failed (HTTP 500)", 502, "upstream_status");
      }
      yield* reply;
    };
  const chat = new ScriptedChat(toolCall("1"), llamaCppLike(text("ok")), llamaCppLike(text("ok")));
  const { agent, sandbox } = await agentWith(chat);
  assert.equal((await agent.ask("x")).finish, "answer");
  assert.deepEqual(sandbox.ran, ["1"]);
  assert.equal(chat.requests.length, 3);
  assert.deepEqual(
    chat.requests
      .at(-1)
      ?.messages.filter((m) => m.role === "assistant")
      .map((m) => m.content),
    [""],
  );
});

test("a 400 unrelated to null content is not retried", async () => {
  const refused = async function* (): AsyncGenerator<ChatDelta> {
    yield* [];
    throw new ChatError("http", "bad request", 400);
  };
  const chat = new ScriptedChat(refused);
  const { agent } = await agentWith(chat);
  await assert.rejects(agent.ask("x"), { status: 400 });
  assert.equal(chat.requests.length, 1);
});

test("code mode: the tools are Python functions in the prompt, and each run is given them", async () => {
  const given: unknown[] = [];
  const sandbox = new RecordingSandbox();
  const execute = sandbox.execute.bind(sandbox);
  sandbox.execute = (code, options) => (given.push((options as { tools?: unknown }).tools), execute(code, options));
  const tools = {
    lookup_price: {
      description: "The price of a product.",
      parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
      handler: () => 9.5,
    },
  };
  const chat = new ScriptedChat(toolCall("await tools.lookup_price(sku='A1')"), text("9.5"));
  // verify "off": the double runs nothing, so "9.5" is never printed.
  const agent = await Agent.create({ sandbox, model: "m1", chat: chat.fn, tools, verify: "off" });
  await agent.ask("price of A1?");
  const system = String(chat.requests[0]?.messages[0]?.content);
  assert.match(system, /`tools` is already imported/);
  // A Python stub with its description as docstring, and a call written as it must be.
  assert.match(system, /async def tools\.lookup_price\(\*, sku: str\) -> Any:\n {4}"""The price of a product\."""/);
  assert.match(system, /For example: result = await tools\.lookup_price\(sku="\.\.\."\)\nprint\(result\)/);
  assert.deepEqual(given, [tools]);
  assert.deepEqual(
    chat.requests[0]?.tools?.map((t) => t.function.name),
    ["run_python"],
  );
  await assert.rejects(
    Agent.create({ sandbox, model: "m1", chat: chat.fn, tools: { "bad name": tools.lookup_price } }),
    /Python identifier/,
  );
});

test("a reply that only reads as an attempt to call is told what a valid call is, once, as an invalid call", async () => {
  const chat = new ScriptedChat(
    text("I will use run_python to compute it."),
    toolCall("print(sum(range(10)))"),
    text("The sum is 45."),
  );
  const { agent, sandbox } = await agentWith(chat);
  const events: AgentEvent[] = [];
  await agent.ask("sum of 0..9?", { onEvent: (e) => events.push(e) });
  const invalid = events.filter((e) => e.type === "invalid-call");
  assert.equal(invalid.length, 1);
  const told = String(chat.requests[1]?.messages.at(-1)?.content);
  assert.match(told, /^Nothing ran: the reply mentions run_python/);
  // The help shows the form, never a program a small model would copy and run instead of its own.
  assert.match(told, /Write the whole program in one ```python code block/);
  assert.doesNotMatch(told, /print\(/);
  assert.deepEqual(sandbox.ran, ["print(sum(range(10)))"]);
});

test("an invalid call's result says what a valid call looks like", async () => {
  const chat = new ScriptedChat(
    [
      { tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "run_python", arguments: "{}" } }] },
      { finishReason: "tool_calls" },
    ],
    text("Sorry."),
  );
  const { agent } = await agentWith(chat);
  await agent.ask("go");
  const result = JSON.parse(String(chat.requests[1]?.messages.at(-1)?.content)) as { outcome: string; help: string };
  assert.equal(result.outcome, "INVALID_CALL");
  assert.match(result.help, /^Call the run_python tool with one argument, `code`/);
});

test("the first request's system prompt carries the kernel's file previews; context: false leaves them out", async () => {
  const sandbox = Object.assign(new RecordingSandbox(), {
    environment: async () => ({ python: "3.12", packages: {}, limits: {}, notes: [], log: [] }),
    listFiles: async () => [{ path: "sales.csv", size: 10, mime: "text/csv" }],
    describeFiles: async () => '- "sales.csv" (10 bytes): 1 rows, 1 columns\n  columns: "amount" int64',
  });
  for (const context of [true, false]) {
    const chat = new ScriptedChat(text("ok"));
    const agent = await Agent.create({ sandbox, model: "m", chat: chat.fn, context });
    await agent.ask("hi");
    const system = String(chat.requests[0]?.messages[0]?.content);
    assert.equal(system.includes('columns: "amount" int64'), context);
    assert.equal(system.includes("a preview, not the whole data"), context);
    assert.ok(system.includes("sales.csv"));
  }
});

test("code mode: a host tool called as the model's own tool is not run; it is told the Python call", async () => {
  const sandbox = new RecordingSandbox();
  const tools = {
    get_order: {
      description: "An order by its id.",
      parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
      handler: () => ({}),
    },
  };
  const native: ChatDelta[] = [
    {
      tool_calls: [
        { index: 0, id: "c1", type: "function", function: { name: "get_order", arguments: '{"order_id": "A-1"}' } },
      ],
    },
  ];
  const fenced = text('```json\n{"name": "get_order", "arguments": {"order_id": "A-2", "full": true}}\n```');
  const chat = new ScriptedChat(native, fenced, text("Done."));
  const agent = await Agent.create({ sandbox, model: "m1", chat: chat.fn, tools, system: "s", verify: "off" });
  const events: AgentEvent[] = [];
  await agent.ask("order A-1?", { onEvent: (e) => events.push(e) });
  assert.deepEqual(sandbox.ran, []);
  const problems = events.filter((e) => e.type === "invalid-call").map((e) => (e as { problem: string }).problem);
  assert.equal(problems.length, 2);
  assert.match(problems[0] ?? "", /get_order is a host tool.*result = await tools\.get_order\(order_id="A-1"\)/);
  assert.match(problems[1] ?? "", /await tools\.get_order\(order_id="A-2", full=True\)/);
  const toldNatively = chat.requests[1]?.messages.at(-1);
  assert.equal(toldNatively?.role, "tool");
  assert.match(String(toldNatively?.content), /await tools\.get_order\(order_id=\\"A-1\\"\)/);
  assert.match(
    String(chat.requests[2]?.messages.at(-1)?.content),
    /await tools\.get_order\(order_id="A-2", full=True\)/,
  );
});
