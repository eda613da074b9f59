// The host's validator: what it accepts is rebuilt without extra fields, and what it refuses
// names the field, so a refused reply can end its call with a message that says why.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LIMITS } from "../../wasm_runtime/protocol/limits.ts";
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

test("a nested field is named by its path", () => {
  const result = {
    outcome: "OUTCOME_OK",
    stdout: "",
    stderr: "",
    truncated: false,
    value: null,
    displays: [],
    files: [],
    error: null,
    policy: null,
  };
  const audit = {
    codeSha256: "",
    filesRead: [42],
    filesWritten: [],
    networkAttempts: [],
    importedModules: [],
    peakMemoryBytes: null,
  };
  const parsed = parseWorkerMessage({ type: "result", id: 1, result: { ...result, audit } });
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
