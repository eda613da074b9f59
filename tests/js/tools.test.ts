// The host's side of the tool bridge: what crosses is checked before any handler runs, and only
// JSON goes back.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LIMITS } from "../../wasm_runtime/protocol/limits.ts";
import type { HostCall } from "../../wasm_runtime/protocol/types.ts";
import { parseWorkerMessage } from "../../wasm_runtime/protocol/validate.ts";
import { pythonSignature, RunCalls, toJsonText, ToolSet, type Tools } from "../../wasm_runtime/sdk/tools.ts";

const seen: unknown[] = [];
const tools: Tools = {
  price: {
    description: "A price.",
    parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
    handler: (args) => {
      seen.push(args);
      if (args.sku === "boom") throw new Error("no such sku");
      return args.sku === "fn" ? { f: () => 1 } : { eur: 9.5 };
    },
  },
};

const call = (name: string, args: string, kind: HostCall["kind"] = "tool"): HostCall => ({
  type: "host-call",
  id: 1,
  callId: 1,
  kind,
  name,
  args,
  sync: false,
});

test("a call is answered with JSON text and recorded", async () => {
  const calls = new RunCalls(ToolSet.of(tools), undefined);
  assert.deepEqual(await calls.answer(call("price", '{"sku": "A1"}')), { ok: true, value: '{"eur":9.5}', error: "" });
  const [record] = calls.close();
  assert.deepEqual([record!.name, record!.ok, record!.argumentsBytes], ["price", true, 13]);
});

test("arguments that do not match the schema never reach the handler", async () => {
  seen.length = 0;
  const calls = new RunCalls(ToolSet.of(tools), undefined);
  for (const args of ['{"sku": 5}', "[1]", "not json", JSON.stringify({ sku: "x".repeat(LIMITS.maxToolBytes) })]) {
    const answer = await calls.answer(call("price", args));
    assert.equal(answer.ok, false, args.slice(0, 20));
  }
  const deep = JSON.stringify({ sku: "a", extra: JSON.parse("[".repeat(100) + "]".repeat(100)) });
  assert.match((await calls.answer(call("price", deep))).error, /nested more than/);
  assert.deepEqual(seen, []);
  assert.match((await calls.answer(call("nope", "{}"))).error, /grants no tool nope/);
});

test("a handler's error and a non-JSON answer come back as refusals", async () => {
  const calls = new RunCalls(ToolSet.of(tools), undefined);
  assert.equal((await calls.answer(call("price", '{"sku": "boom"}'))).error, "no such sku");
  assert.match((await calls.answer(call("price", '{"sku": "fn"}'))).error, /function is not JSON data/);
});

test("input() is answered only when the run has onInput", async () => {
  assert.match((await new RunCalls(ToolSet.empty, undefined).answer(call("input", '"x"', "input"))).error, /nobody/);
  const prompts: string[] = [];
  const calls = new RunCalls(ToolSet.empty, (prompt) => (prompts.push(prompt), "Ada"));
  assert.deepEqual(await calls.answer(call("input", '"Name? "', "input")), { ok: true, value: '"Ada"', error: "" });
  assert.deepEqual(prompts, ["Name? "]);
  assert.equal(calls.close().length, 0); // input() is not a tool call
});

test("only plain JSON data turns into JSON text", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  for (const bad of [cycle, new Map(), new Date(0), [undefined], { s: Symbol("s") }, 1n, NaN, Infinity]) {
    assert.ok("problem" in toJsonText(bad), String(bad));
  }
  assert.deepEqual(toJsonText({ a: [1, "b", null, true], __proto__: null }), { text: '{"a":[1,"b",null,true]}' });
});

test("bad tool definitions are refused by name", () => {
  const handler = () => 1;
  assert.throws(() => ToolSet.of({ "not-a-name": { description: "", parameters: {}, handler } }), /Python identifier/);
  assert.throws(() => ToolSet.of({ class: { description: "", parameters: {}, handler } }), /keyword/);
  assert.throws(() => ToolSet.of({ f: { description: "", parameters: { type: "array" }, handler } }), /object/);
  assert.throws(() => ToolSet.of({ f: { description: "", parameters: {}, handler: "x" } }), /handler/);
});

test("the Python signature lists keyword arguments, required first", () => {
  const schema = {
    type: "object",
    properties: { limit: { type: "integer" }, sku: { type: "string" }, kind: { enum: ["a", "b"] } },
    required: ["sku"],
  };
  assert.equal(
    pythonSignature("find", schema),
    'find(*, sku: str, limit: int = ..., kind: Literal["a", "b"] = ...) -> Any',
  );
  assert.equal(pythonSignature("now", {}), "now() -> Any");
});

test("the host validates a host call from the worker", () => {
  assert.ok(parseWorkerMessage(call("price", "{}")).ok);
  assert.equal(parseWorkerMessage({ ...call("price", "{}"), name: "__import__('os')" }).ok, false);
  assert.equal(parseWorkerMessage({ ...call("price", "{}"), kind: "fetch" }).ok, false);
  assert.equal(parseWorkerMessage({ ...call("price", "x".repeat(LIMITS.maxToolBytes + 1)) }).ok, false);
});

test("a call the run left unanswered is recorded as such, and a late answer is not", async () => {
  let finish = (): void => undefined;
  const slow: Tools = {
    slow: {
      description: "",
      parameters: {},
      handler: () => new Promise((resolve) => (finish = () => resolve(1))),
    },
  };
  const calls = new RunCalls(ToolSet.of(slow), undefined);
  const answered = calls.answer(call("slow", "{}"));
  await new Promise((resolve) => setTimeout(resolve, 5));
  const [record] = calls.close();
  assert.deepEqual([record!.ok, record!.error], [false, "the run ended before the host answered"]);
  finish();
  await answered;
  assert.equal(calls.close().length, 1);
});
