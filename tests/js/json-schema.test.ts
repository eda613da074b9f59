// The SDK's result schema: the committed JSON Schema the Python client reads is the one schema.ts
// makes today (`make protocol` writes it), and the recorded SDK results are what the schema says.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import * as v from "valibot";
import { RESULT_SCHEMA_FILE, resultSchemaText } from "../../wasm_runtime/protocol/json-schema.js";
import { ExecutionResultSchema, KernelResultSchema } from "../../wasm_runtime/protocol/schema.js";
import { OUTCOMES } from "../../wasm_runtime/protocol/types.js";

const DIR = new URL("../fixtures/sdk-results/", import.meta.url);
const names = readdirSync(DIR).filter((n) => n.endsWith(".json"));

test("the committed JSON Schema is the one schema.ts makes (else run `make protocol`)", () => {
  assert.equal(readFileSync(RESULT_SCHEMA_FILE, "utf8"), resultSchemaText());
});

test("the JSON Schema lists the protocol's outcomes and every field the SDK adds", () => {
  const schema = JSON.parse(readFileSync(RESULT_SCHEMA_FILE, "utf8")) as {
    properties: Record<string, { enum?: string[] }>;
    required: string[];
  };
  assert.deepEqual(schema.properties.outcome?.enum, [...OUTCOMES]);
  const kernelFields = Object.keys(KernelResultSchema.entries);
  assert.deepEqual(Object.keys(schema.properties), [
    ...kernelFields,
    "durationMs",
    "stateLost",
    "validation",
    "stateRestored",
  ]);
  const kernelRequired = kernelFields.filter(
    (field) => KernelResultSchema.entries[field as keyof typeof KernelResultSchema.entries].type !== "optional",
  );
  assert.deepEqual(schema.required, [...kernelRequired, "durationMs", "stateLost"]);
});

for (const name of names) {
  test(`${name} is an ExecutionResult`, () => {
    const fixture: unknown = JSON.parse(readFileSync(new URL(name, DIR), "utf8"));
    assert.deepEqual(v.parse(ExecutionResultSchema, fixture), fixture);
  });
}

test("a result without a field the host adds is not an ExecutionResult", () => {
  const fixture = JSON.parse(readFileSync(new URL(names[0] ?? "", DIR), "utf8")) as Record<string, unknown>;
  assert.equal(v.safeParse(ExecutionResultSchema, fixture).success, true);
  delete fixture.stateLost;
  assert.equal(v.safeParse(ExecutionResultSchema, fixture).success, false);
});
