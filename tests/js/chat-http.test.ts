// httpChat against a fake fetch: the wire shapes of real servers and each way they fail.
import assert from "node:assert/strict";
import { test } from "node:test";
import { httpChat } from "../../wasm_runtime/sdk/agent/chat-http.js";
import type { ChatDelta, ChatError, ChatRequest } from "../../wasm_runtime/sdk/agent/chat-types.js";
import { ToolCallAssembler } from "../../wasm_runtime/sdk/agent/tool-calls.js";

const request = (stream: boolean): ChatRequest => ({ model: "m", messages: [{ role: "user", content: "hi" }], stream });

const sse = (...events: unknown[]): string =>
  events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");

const chunk = (delta: object, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

interface Sent {
  url: string;
  init: RequestInit;
}

function fakeFetch(
  body: string,
  init: ResponseInit & { contentType?: string } = {},
): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch = async (url: string | URL | Request, requestInit?: RequestInit): Promise<Response> => {
    sent.push({ url: String(url), init: requestInit ?? {} });
    const headers = { "Content-Type": init.contentType ?? "text/event-stream", ...(init.headers as object) };
    return new Response(body, { status: init.status ?? 200, headers });
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

async function collect(chat: ReturnType<typeof httpChat>, stream = true): Promise<ChatDelta[]> {
  const out: ChatDelta[] = [];
  for await (const delta of chat(request(stream), new AbortController().signal)) out.push(delta);
  return out;
}

test("a stream is read as deltas, to the endpoint under baseUrl, with the key", async () => {
  const { fetch, sent } = fakeFetch(
    sse(chunk({ content: "Hel" }), chunk({ content: "lo" }), chunk({}, "stop"), "[DONE]"),
  );
  const deltas = await collect(httpChat({ baseUrl: "http://h/v1/", apiKey: "k", fetch }));
  assert.equal(deltas.map((d) => d.content ?? "").join(""), "Hello");
  assert.equal(sent[0]?.url, "http://h/v1/chat/completions");
  assert.equal((sent[0]?.init.headers as Record<string, string>).Authorization, "Bearer k");
  assert.equal(JSON.parse(String(sent[0]?.init.body)).stream, true);
});

test("an empty stream is an empty-stream error", async () => {
  const { fetch } = fakeFetch(sse("[DONE]"));
  await assert.rejects(collect(httpChat({ baseUrl: "/api", fetch })), { type: "empty-stream" });
});

test("a stream that stops before the model finished is a cut-stream error", async () => {
  const { fetch } = fakeFetch(sse(chunk({ content: "Hel" })));
  await assert.rejects(collect(httpChat({ baseUrl: "/api", fetch })), { type: "cut-stream" });
});

test("an error event in the stream (the proxy's, after a cut) keeps the server's message and code", async () => {
  const error = { error: { type: "upstream_unreachable", message: "the LLM server closed the connection" } };
  const { fetch } = fakeFetch(sse(chunk({ content: "Hel" }), error));
  await assert.rejects(
    collect(httpChat({ baseUrl: "/api", fetch })),
    (e: ChatError) => e.type === "cut-stream" && e.code === "upstream_unreachable" && /closed/.test(e.message),
  );
});

test("a stream the proxy ended for a stalled model says so, with the timeout's hint", async () => {
  const error = {
    error: { type: "upstream_timeout", message: "the LLM server sent nothing but keep-alives for 300 s" },
  };
  const { fetch } = fakeFetch(`: ping\r\n\r\n${sse(error)}`);
  await assert.rejects(
    collect(httpChat({ baseUrl: "/api", fetch })),
    (e: ChatError) => e.code === "upstream_timeout" && /keep-alives/.test(e.message) && /took too long/.test(e.hint),
  );
});

test("an HTTP error carries status, code, Retry-After and a hint", async () => {
  const body = JSON.stringify({ error: { type: "rate_limited", code: "rate_limited", message: "slow down" } });
  const { fetch } = fakeFetch(body, { status: 429, contentType: "application/json", headers: { "Retry-After": "7" } });
  await assert.rejects(
    collect(httpChat({ baseUrl: "/api", fetch })),
    (e: ChatError) =>
      e.type === "http" &&
      e.status === 429 &&
      e.code === "rate_limited" &&
      e.hint === "Wait 7 s, then send the message again.",
  );
});

test("the proxy's empty-stream answer is an http error with code upstream_malformed", async () => {
  const body = JSON.stringify({
    error: { type: "upstream_malformed", code: "upstream_malformed", message: "the LLM server sent an empty stream" },
  });
  const { fetch } = fakeFetch(body, { status: 502, contentType: "application/json" });
  await assert.rejects(collect(httpChat({ baseUrl: "/api", fetch })), { type: "http", code: "upstream_malformed" });
});

test("an unreachable server is a network error that says where", async () => {
  const fetch = (async () => {
    throw new TypeError("fetch failed");
  }) as unknown as typeof globalThis.fetch;
  await assert.rejects(
    collect(httpChat({ baseUrl: "http://nowhere/v1", fetch })),
    (e: ChatError) => e.type === "network" && /nowhere/.test(e.message),
  );
});

test("a non-streamed answer is one delta with its tool calls indexed (content null allowed)", async () => {
  const message = {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "run_python", arguments: '{"code": "1"}' } }],
  };
  const body = JSON.stringify({ choices: [{ index: 0, message, finish_reason: "tool_calls" }] });
  const { fetch, sent } = fakeFetch(body, { contentType: "application/json" });
  const [delta] = await collect(httpChat({ baseUrl: "/api", fetch }), false);
  assert.equal(JSON.parse(String(sent[0]?.init.body)).stream, false);
  assert.equal(delta?.content, null);
  assert.equal(delta?.tool_calls?.[0]?.index, 0);
  assert.equal(delta?.finishReason, "tool_calls");
});

test("a JSON answer to a streamed request (servers that ignore stream with tools) is read", async () => {
  const body = JSON.stringify({ choices: [{ index: 0, message: { content: "ok" }, finish_reason: "stop" }] });
  const { fetch } = fakeFetch(body, { contentType: "application/json" });
  const deltas = await collect(httpChat({ baseUrl: "/api", fetch }));
  assert.equal(deltas[0]?.content, "ok");
});

test("a body that is not OpenAI's is malformed", async () => {
  const { fetch } = fakeFetch("<html>hi</html>", { contentType: "text/html" });
  await assert.rejects(collect(httpChat({ baseUrl: "/api", fetch })), { type: "malformed" });
});

// Tool-call deltas as different servers stream them.
const assemble = (...batches: ChatDelta["tool_calls"][]) => {
  const calls = new ToolCallAssembler();
  for (const batch of batches) calls.add(batch ?? []);
  return calls.done();
};

test("OpenAI: name and id once, arguments in pieces by index", () => {
  const calls = assemble(
    [{ index: 0, id: "a", function: { name: "run_python", arguments: "" } }],
    [{ index: 0, function: { arguments: '{"code":' } }],
    [{ index: 0, function: { arguments: '"1"}' } }],
  );
  assert.deepEqual(calls, [{ id: "a", type: "function", function: { name: "run_python", arguments: '{"code":"1"}' } }]);
});

test("Ollama (older): whole calls without index, arguments as an object", () => {
  const calls = assemble(
    [{ id: "call_1", function: { name: "run_python", arguments: { code: "1" } } }],
    [{ id: "call_2", function: { name: "run_python", arguments: { code: "2" } } }],
  );
  assert.deepEqual(
    calls.map((c) => c.function.arguments),
    ['{"code":"1"}', '{"code":"2"}'],
  );
});

test("vLLM: no id while streaming, the name repeated, null fields", () => {
  const calls = assemble(
    [{ index: 0, id: null, function: { name: "run_python", arguments: null } }],
    [{ index: 0, function: { name: "run_python", arguments: '{"code": "x"}' } }],
  );
  assert.equal(calls[0]?.function.name, "run_python");
  assert.equal(calls[0]?.function.arguments, '{"code": "x"}');
});
