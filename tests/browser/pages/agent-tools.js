// `make bench-agent`'s task that needs three host tools, answered two ways through the app's proxy:
//   codeMode: the SDK Agent with `tools` (the model calls them inside one run_python program);
//   toolPerCall: each tool offered to the model as a tool of its own, one model round trip per
//   answer, with no Python: what an agent without code mode does.
// The tools are tables the bench gives (name, description, one string parameter, answers by key);
// `window.toolBench.calls` lists the calls their handlers got.
import { Agent, Sandbox, httpChat, textToolCalls } from "../sdk/wasmbox.js";

const calls = [];
const chat = httpChat({ baseUrl: "/api" });
const SYSTEM = "You are a helpful assistant. Use the tools you are given to answer the user's question.";

/** SDK tools from the bench's tables: a key the table lacks is the handler's error. */
function toolsOf(specs) {
  return Object.fromEntries(
    specs.map(({ name, description, parameter, answers }) => [
      name,
      {
        description,
        parameters: { type: "object", properties: { [parameter]: { type: "string" } }, required: [parameter] },
        handler: (args) => {
          const key = args[parameter];
          calls.push({ name, key });
          if (!Object.hasOwn(answers, key)) throw new Error(`unknown ${parameter}: ${key}`);
          return answers[key];
        },
      },
    ]),
  );
}

async function codeMode({ question, tools, model, maxSteps }) {
  const sandbox = await Sandbox.create({ timeoutMs: 300_000 });
  try {
    const agent = await Agent.create({ sandbox, model, maxSteps, chat: { baseUrl: "/api" }, tools: toolsOf(tools) });
    const started = performance.now(); // the sandbox's start is not the answer's time
    const turn = await agent.ask(question);
    const answer = turn.parts
      .filter((p) => p.kind === "text")
      .map((p) => p.text)
      .join("");
    const runs = turn.parts.filter((p) => p.kind === "executable_code").length;
    return { answer, finish: turn.finish, runs, ms: performance.now() - started };
  } finally {
    await sandbox.close();
  }
}

async function answerCall(tools, { name, args, problem }) {
  if (problem) return JSON.stringify({ error: problem });
  const tool = tools[name];
  if (!tool) return JSON.stringify({ error: `there is no tool named ${name}` });
  try {
    return JSON.stringify(await tool.handler(args));
  } catch (error) {
    return JSON.stringify({ error: error.message });
  }
}

// Servers send a call's arguments as JSON text, or (Ollama) as an object.
const argumentsText = (args) => (typeof args === "string" ? args : JSON.stringify(args ?? {}));

async function toolPerCall({ question, tools, model, maxSteps }) {
  const handlers = toolsOf(tools);
  const offered = Object.entries(handlers).map(([name, { description, parameters }]) => ({
    type: "function",
    function: { name, description, parameters },
  }));
  const messages = [
    { role: "system", content: SYSTEM },
    { role: "user", content: question },
  ];
  const signal = new AbortController().signal;
  const started = performance.now();
  const over = (answer, finish) => ({ answer, finish, runs: 0, ms: performance.now() - started });
  for (let step = 1; step <= maxSteps; step += 1) {
    let content = "";
    const native = [];
    const request = { model, messages, tools: offered, tool_choice: "auto", stream: false };
    for await (const delta of chat(request, signal)) {
      content += delta.content ?? "";
      native.push(...(delta.tool_calls ?? []));
    }
    if (native.length) {
      const ids = native.map((_, i) => `call_${step}_${i}`);
      const toolCalls = native.map((call, i) => ({
        id: ids[i],
        type: "function",
        function: { name: call.function?.name ?? "", arguments: argumentsText(call.function?.arguments) },
      }));
      messages.push({ role: "assistant", content: content || "", tool_calls: toolCalls });
      for (const [i, call] of toolCalls.entries()) {
        let args = {};
        let problem;
        try {
          args = JSON.parse(call.function.arguments || "{}");
        } catch {
          problem = "its arguments are not valid JSON";
        }
        const answer = await answerCall(handlers, { name: call.function.name, args, problem });
        messages.push({ role: "tool", tool_call_id: ids[i], content: answer });
      }
      continue;
    }
    messages.push({ role: "assistant", content });
    // A call written as text (Hermes tags, fenced JSON, `functions.name:`), read by the SDK's own
    // parser as the code-mode agent reads run_python's: a model without native calls is not failed.
    const written = textToolCalls(content, Object.keys(handlers)).calls;
    if (!written.length) return over(content, "answer");
    const results = [];
    for (const call of written) {
      if ("problem" in call) results.push(`Your tool call could not be made: ${call.problem}.`);
      else
        results.push(
          `Result of ${call.name}: ${await answerCall(handlers, { name: call.name, args: call.arguments })}`,
        );
    }
    messages.push({ role: "user", content: results.join("\n\n") });
  }
  return over("", "step-limit");
}

window.toolBench = { calls, "code-mode": codeMode, "tool-per-call": toolPerCall };
window.toolBenchReady = true;
