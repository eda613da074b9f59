// The local model's pure parts: what it sends the engine, how chunks become deltas, the GGUF
// header it reads before loading, the memory check, and split models' shard names.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatCompletionChunk } from "@wllama/wllama";
import type { ChatDelta, ChatMessage } from "../../wasm_runtime/sdk/agent/chat-types.js";
import { ToolCallAssembler } from "../../wasm_runtime/sdk/agent/tool-calls.js";
import { classifyReply } from "../../wasm_runtime/sdk/agent/reply-forms.js";
import { deltasOf, engineParams, joined } from "../../wasm_runtime/sdk/local-model/chat.js";
import { readGguf } from "../../wasm_runtime/sdk/local-model/gguf.js";
import { checkMemory, kvCacheBytes } from "../../wasm_runtime/sdk/local-model/memory.js";
import { localMessages, templateHasTools } from "../../wasm_runtime/sdk/local-model/prompt.js";
import { systemPrompt } from "../../wasm_runtime/sdk/agent/prompt.js";
import type { ToolSpec } from "../../wasm_runtime/protocol/types.js";
import { shardUrls } from "../../wasm_runtime/sdk/local-model/weights.js";

// The agent's own system prompt, with what a session adds to it: files previewed by the kernel,
// a resume, a host tool. A compact prompt must keep all three.
const environment = { python: "3.12", packages: { pandas: "2.2" }, limits: {}, notes: ["many lines"], log: [] };
const preview = '- "prices.csv" (40 bytes): 3 rows, 2 columns\n  columns: "item" object, "unit_price" float64';
const tool: ToolSpec = { name: "lookup", signature: "lookup(*, sku: str) -> Any", description: "A price." };
const system = systemPrompt(
  {
    environment,
    files: [{ path: "prices.csv", size: 40, mime: "text/csv" }],
    preview,
    resumed: { restored: ["df"], notRestored: [] },
  },
  [tool],
);
const messages: ChatMessage[] = [
  { role: "system", content: system },
  { role: "user", content: "Sum the prices." },
];

test("the compact prompt replaces the agent's, keeping the files' preview, the resume and the tools", () => {
  const [first, user] = localMessages(messages, "compact", false);
  const compact = first?.content ?? "";
  assert.equal(first?.role, "system");
  assert.match(compact, /run_python/);
  assert.ok(compact.includes('columns: "item" object, "unit_price" float64'));
  assert.match(compact, /use these exact column names/);
  assert.match(compact, /Variables restored: df\./);
  assert.match(compact, /async def tools\.lookup\(\*, sku: str\) -> Any:/);
  for (const dropped of [/Known differences/, /How to work, step by step/, /pandas 2\.2/])
    assert.doesNotMatch(compact, dropped);
  assert.ok(compact.length < system.length);
  assert.deepEqual(user, messages[1]);
});

test("the compact prompt keeps a plain file listing when there is no preview", () => {
  const plain = systemPrompt({ environment, files: [{ path: "notes.txt", size: 5, mime: "text/plain" }] });
  const [first] = localMessages([{ role: "system", content: plain }], "compact", false);
  assert.match(first?.content ?? "", /Files in the working directory:\n- notes\.txt \(5 bytes\)/);
  assert.doesNotMatch(first?.content ?? "", /Known differences/);
});

test("a template without tools is told the <tool_call> text form, which the agent reads", () => {
  const [first] = localMessages(messages, "as-sent", true);
  assert.ok(first?.content.startsWith(system));
  const example = /<tool_call>.*<\/tool_call>/.exec(first?.content ?? "")?.[0] ?? "";
  const { form, calls } = classifyReply(example, []);
  assert.equal(form, "hermes");
  assert.deepEqual(calls, [{ code: "print(1 + 1)" }]);
});

test("as-sent without text tools leaves the messages alone", () => {
  assert.equal(localMessages(messages, "as-sent", false), messages);
});

test("templates that render tools are told apart from those that do not", () => {
  assert.equal(templateHasTools("{% if tools %}<tools>{{ tools }}</tools>{% endif %}"), true);
  assert.equal(templateHasTools("{% for message in messages %}{{ message['content'] }}{% endfor %}"), false);
  assert.equal(templateHasTools(null), false);
});

test("the engine is asked to keep the prompt's prefix cached and to report prompt progress", () => {
  const signal = new AbortController().signal;
  const params = engineParams(
    { model: "m", messages, stream: true, tools: [{ type: "function" }] },
    { maxTokens: 64, temperature: 0.2, seed: 0 },
    signal,
  );
  assert.equal(params.cache_prompt, true);
  assert.equal(params.return_progress, true);
  assert.equal(params.max_tokens, 64);
  assert.equal(params.tool_choice, "auto");
  assert.equal(params.abortSignal, signal);
  const none = engineParams(
    { model: "m", messages, stream: true, tools: [] },
    { maxTokens: 1, temperature: 0, seed: 0 },
    signal,
  );
  assert.equal(none.tools, undefined, "no schema when tools travel as text");
});

async function* chunks(...list: Partial<ChatCompletionChunk>[]): AsyncGenerator<ChatCompletionChunk> {
  for (const chunk of list) yield chunk as ChatCompletionChunk;
}
const choice = (delta: object, finish: string | null = null) =>
  ({
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  }) as Partial<ChatCompletionChunk>;

test("chunks become deltas, with prompt progress, token rate and the engine's timings", async () => {
  const progress: string[] = [];
  let timings: unknown = null;
  const deltas: ChatDelta[] = [];
  const timing = {
    cache_n: 30,
    prompt_n: 5,
    prompt_ms: 1,
    prompt_per_token_ms: 1,
    prompt_per_second: 50,
    predicted_n: 2,
    predicted_ms: 1,
    predicted_per_token_ms: 1,
    predicted_per_second: 9,
  };
  for await (const delta of deltasOf(
    chunks(
      { prompt_progress: { total: 35, cache: 30, processed: 35, time_ms: 1 }, choices: [] },
      choice({ content: "Hel" }),
      choice({ content: "lo" }),
      { ...choice({}, "stop"), timings: timing },
    ),
    (event) => progress.push(event.phase),
    (t) => (timings = t),
  ))
    deltas.push(delta);
  assert.deepEqual(
    deltas.map((d) => [d.content, d.finishReason]),
    [
      ["Hel", null],
      ["lo", null],
      [null, "stop"],
    ],
  );
  assert.deepEqual(progress, ["prompt", "generate", "generate"]);
  assert.equal(timings, timing);
});

test("a non-streamed reply is the streamed deltas joined, tool calls assembled by index", () => {
  const whole = joined([
    {
      content: null,
      tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "run_python", arguments: '{"co' } }],
    },
    { content: null, tool_calls: [{ index: 0, function: { arguments: 'de": "1"}' } }] },
    { content: null, finishReason: "tool_calls" },
  ]);
  assert.equal(whole.finishReason, "tool_calls");
  const calls = new ToolCallAssembler();
  calls.add(whole.tool_calls ?? []);
  assert.deepEqual(calls.done()[0]?.function, { name: "run_python", arguments: '{"code": "1"}' });
});

/** A GGUF header with these key/values (strings and uint32s), then padding. */
function gguf(values: Record<string, string | number>): Blob {
  const parts: number[] = [];
  const u32 = (n: number) => parts.push(n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >>> 24) & 255);
  const u64 = (n: number) => {
    u32(n);
    u32(0);
  };
  const str = (s: string) => {
    const bytes = new TextEncoder().encode(s);
    u64(bytes.length);
    parts.push(...bytes);
  };
  parts.push(...new TextEncoder().encode("GGUF"));
  u32(3);
  u64(0);
  u64(Object.keys(values).length);
  for (const [key, value] of Object.entries(values)) {
    str(key);
    u32(typeof value === "string" ? 8 : 4);
    if (typeof value === "string") str(value);
    else u32(value);
  }
  return new Blob([new Uint8Array(parts), new Uint8Array(64)]);
}

test("the GGUF header gives the model's shape and its chat template", async () => {
  const shape = await readGguf(
    gguf({
      "general.architecture": "llama",
      "llama.block_count": 30,
      "llama.embedding_length": 576,
      "llama.attention.head_count": 9,
      "llama.attention.head_count_kv": 3,
      "tokenizer.chat_template": "{{ messages }}",
    }),
    "m.gguf",
  );
  assert.deepEqual(shape, {
    architecture: "llama",
    layers: 30,
    embedding: 576,
    heads: 9,
    headsKv: 3,
    contextTrained: null,
    chatTemplate: "{{ messages }}",
  });
  // SmolLM2-135M at 4096 tokens: llama.cpp reports a 90 MiB f16 cache.
  assert.equal(kvCacheBytes(shape, 4096), 90 * 2 ** 20);
});

test("a file that is not GGUF is refused by name", async () => {
  await assert.rejects(readGguf(new Blob(["<html>not found</html>".padEnd(64)]), "model.gguf"), {
    name: "LocalModelError",
    type: "not-gguf",
    message: "model.gguf is not a GGUF model file",
  });
});

test("a model that would not fit says so with both figures", () => {
  const shape = {
    architecture: "llama",
    layers: 28,
    embedding: 1536,
    heads: 12,
    headsKv: 2,
    contextTrained: null,
    chatTemplate: null,
  };
  assert.throws(
    () => checkMemory(1_117_320_768, shape, 4096, 1024 * 2 ** 20),
    (error: Error & { type?: string; required?: number }) => {
      assert.equal(error.type, "too-large");
      assert.match(error.message, /needs about 1\d{3} MB .* can use about 1024 MB/);
      assert.ok((error.required ?? 0) > 1_117_320_768);
      return true;
    },
  );
  checkMemory(98_362_432, shape, 2048, 2 * 2 ** 30);
});

test("a split model's first shard names every shard", () => {
  assert.deepEqual(shardUrls("https://h/m/qwen-00001-of-00003.gguf"), [
    "https://h/m/qwen-00001-of-00003.gguf",
    "https://h/m/qwen-00002-of-00003.gguf",
    "https://h/m/qwen-00003-of-00003.gguf",
  ]);
  assert.deepEqual(shardUrls("https://h/m/smol.gguf"), ["https://h/m/smol.gguf"]);
});
