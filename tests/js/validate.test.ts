// The host's validator: what it accepts is rebuilt without extra fields, and what it refuses
// names the field, so a refused reply can end its call with a message that says why.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LIMITS } from "../../wasm_runtime/protocol/limits.ts";
import { emptyAudit, errorInfo, nothingStreamed, resultWithoutKernel } from "../../wasm_runtime/protocol/results.ts";
import { parseWorkerMessage } from "../../wasm_runtime/protocol/validate.ts";

const file = (i: number) => ({ path: `f${i}`, size: 0, mime: "application/octet-stream" });

test("a listing over the cap is refused, naming the field and the call", () => {
  const files = Array.from({ length: LIMITS.maxListEntries + 1 }, (_, i) => file(i));
  const parsed = parseWorkerMessage({ type: "files", id: 7, files });
  assert.equal(parsed.ok, false);
  if (parsed.ok) return;
  assert.deepEqual([parsed.refusal.field, parsed.refusal.id, parsed.refusal.type], ["files", 7, "files"]);
  assert.match(parsed.refusal.problem, /10000/);
});

test("file bytes over the cap are refused as `data`", () => {
  const data = new Uint8Array(LIMITS.maxFileBytes + 1);
  const parsed = parseWorkerMessage({ type: "file", id: 3, data });
  assert.ok(!parsed.ok && parsed.refusal.field === "data" && parsed.refusal.id === 3);
});

test("a file batch is refused when its files together pass the per-request cap", () => {
  const half = new Uint8Array(LIMITS.maxFileBytes / 2 + 1);
  const parsed = parseWorkerMessage({
    type: "file-batch",
    id: 4,
    files: [
      { path: "a", data: half },
      { path: "b", data: half },
    ],
  });
  assert.ok(!parsed.ok && parsed.refusal.field === "files" && parsed.refusal.id === 4);
  const one = parseWorkerMessage({ type: "file-batch", id: 5, files: [{ path: "a", data: half }] });
  assert.ok(one.ok);
});

// A run's result as the worker sends it: `files` and the audit's fields as given.
const runResult = (files: unknown, audit: Record<string, unknown> = {}) => {
  const shape = resultWithoutKernel("OUTCOME_OK", errorInfo("", ""), nothingStreamed(), "");
  return { type: "result", id: 9, result: { ...shape, error: null, files, audit: { ...emptyAudit(""), ...audit } } };
};

test("a nested field is named by its path", () => {
  const parsed = parseWorkerMessage(runResult([], { filesRead: [42] }));
  assert.ok(!parsed.ok);
  assert.equal(parsed.refusal.field, "result.audit.filesRead.0");
});

test("an accepted message is rebuilt without the fields the sandbox added", () => {
  const parsed = parseWorkerMessage({ type: "done", id: 1, extra: "dropped", __proto__: { polluted: true } });
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.value, { type: "done", id: 1 });
});

test("Python's None (undefined after toJs) becomes null", () => {
  const parsed = parseWorkerMessage({ type: "failed", id: 2, error: { name: "E", message: "m", traceback: "" } });
  assert.ok(parsed.ok && parsed.value.type === "failed");
  assert.equal(parsed.ok && parsed.value.type === "failed" && parsed.value.limit, null);
});

test("an unknown message type is refused at `type`", () => {
  const parsed = parseWorkerMessage({ type: "surprise", id: 1 });
  assert.ok(!parsed.ok && parsed.refusal.field === "type");
});

test("`booted` names the snapshot the worker started from, one of the known ones", () => {
  const booted = { type: "booted", isolated: true, bootMs: 5, steps: [] };
  const parsed = parseWorkerMessage({ ...booted, snapshot: "packages" });
  assert.ok(parsed.ok && parsed.value.type === "booted" && parsed.value.snapshot === "packages");
  for (const snapshot of [undefined, "heap", 1]) {
    const refused = parseWorkerMessage({ ...booted, snapshot });
    assert.ok(!refused.ok && refused.refusal.field === "snapshot", String(snapshot));
  }
});

test("`preloaded` carries a bounded list of package names and nothing else", () => {
  const parsed = parseWorkerMessage({ type: "preloaded", packages: ["numpy", "pandas"], heap: [1] });
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.value, { type: "preloaded", packages: ["numpy", "pandas"] });
  const tooMany = Array.from({ length: 201 }, (_, i) => `p${i}`);
  for (const packages of [undefined, "numpy", [7], ["x".repeat(101)], tooMany]) {
    const refused = parseWorkerMessage({ type: "preloaded", packages });
    assert.ok(!refused.ok, `accepted ${String(packages).slice(0, 40)}`);
    assert.match(refused.refusal.field, /^packages/);
  }
});

test("`imported` carries only a listed module name, nothing else of the run", () => {
  const parsed = parseWorkerMessage({ type: "imported", id: 4, module: "plotly", text: "dropped" });
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.value, { type: "imported", id: 4, module: "plotly" });
  for (const module of ["numpy", "plotly.express", "Plotly", "<img src=x onerror=alert(1)>", "", 7, null]) {
    const refused = parseWorkerMessage({ type: "imported", id: 4, module });
    assert.ok(!refused.ok, `accepted ${JSON.stringify(module)}`);
    assert.equal(refused.refusal.field, "module");
  }
});

// The path lists and file lists of a result are checked in one loop (schema.ts: quickList); what
// that loop does not accept goes to valibot's per-entry check, so a refusal is the same as ever.
test("10,000 files and their paths are accepted as fresh lists, without the fields added", () => {
  const files = Array.from({ length: LIMITS.maxListEntries }, (_, i) => ({ ...file(i), extra: i }));
  const paths = files.map(({ path }) => path);
  const parsed = parseWorkerMessage(runResult(files, { filesWritten: paths }));
  assert.ok(parsed.ok && parsed.value.type === "result");
  const { result } = parsed.value;
  assert.notEqual(result.files, files);
  assert.notEqual(result.audit.filesWritten, paths);
  assert.deepEqual(
    result.files,
    Array.from({ length: LIMITS.maxListEntries }, (_, i) => file(i)),
  );
  assert.deepEqual(result.audit.filesWritten, paths);
  assert.ok(result.files.every((entry, i) => entry !== files[i]));
});

test("a bad entry deep in a long list is refused, named by its index, as valibot names it", () => {
  const many = (bad: unknown) => Array.from({ length: 5000 }, (_, i) => (i === 4321 ? bad : file(i)));
  const refusals: [unknown, string, RegExp][] = [
    [{ ...file(1), size: 1.5 }, "result.files.4321.size", /integer/],
    [{ ...file(1), size: "0" }, "result.files.4321.size", /number/],
    [{ ...file(1), size: Number.NaN }, "result.files.4321.size", /number/],
    [{ ...file(1), path: "p".repeat(4097) }, "result.files.4321.path", /4096/],
    [{ ...file(1), mime: "m".repeat(257) }, "result.files.4321.mime", /256/],
    [{ path: "a", size: 0 }, "result.files.4321.mime", /mime/],
    [null, "result.files.4321", /Object/],
    ["a", "result.files.4321", /Object/],
  ];
  for (const [bad, field, problem] of refusals) {
    const parsed = parseWorkerMessage(runResult(many(bad)));
    assert.ok(!parsed.ok, `accepted ${JSON.stringify(bad)}`);
    assert.deepEqual([parsed.refusal.field, parsed.refusal.id], [field, 9]);
    assert.match(parsed.refusal.problem, problem);
  }
  const paths = (bad: unknown) => Array.from({ length: 5000 }, (_, i) => (i === 4999 ? bad : `f${i}`));
  for (const [bad, problem] of [
    [7, /string/],
    [null, /string/],
    ["x".repeat(4097), /4096/],
  ] as const) {
    const parsed = parseWorkerMessage(runResult([], { filesWritten: paths(bad) }));
    assert.ok(!parsed.ok, `accepted ${JSON.stringify(bad)}`);
    assert.equal(parsed.refusal.field, "result.audit.filesWritten.4999");
    assert.match(parsed.refusal.problem, problem);
  }
});

test("a path list that is not a list, or is over the cap, is refused at the list", () => {
  const over = Array.from({ length: LIMITS.maxListEntries + 1 }, (_, i) => `f${i}`);
  for (const [filesWritten, problem] of [
    [over, /10000/],
    ["f0", /Array/],
    [{ length: 1, 0: "f0" }, /Array/],
  ] as const) {
    const parsed = parseWorkerMessage(runResult([], { filesWritten }));
    assert.ok(!parsed.ok);
    assert.equal(parsed.refusal.field, "result.audit.filesWritten");
    assert.match(parsed.refusal.problem, problem);
  }
  const files = Array.from({ length: LIMITS.maxListEntries + 1 }, (_, i) => file(i));
  const parsed = parseWorkerMessage(runResult(files));
  assert.ok(!parsed.ok && parsed.refusal.field === "result.files");
});
