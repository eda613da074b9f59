// The recorded results in tests/fixtures/sdk-results/ are what the SDK returns: the TS parser
// keeps every field of each but the host's own (and the Python client's pydantic model reads the
// same files).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { parseKernelResult } from "../../wasm_runtime/protocol/validate.js";

const DIR = new URL("../fixtures/sdk-results/", import.meta.url);
const names = readdirSync(DIR).filter((n) => n.endsWith(".json"));

const fixtures = names.map((name) => JSON.parse(readFileSync(new URL(name, DIR), "utf8")) as Record<string, unknown>);

test("the fixtures cover each outcome a run recorded for them ends in", () => {
  const outcomes = new Set(fixtures.map((fixture) => fixture.outcome));
  assert.deepEqual([...outcomes].sort(), [
    "OUTCOME_DEADLINE_EXCEEDED",
    "OUTCOME_FAILED",
    "OUTCOME_OK",
    "OUTCOME_POLICY_VIOLATION",
  ]);
  assert.ok(fixtures.some((fixture) => fixture.stateRestored !== undefined));
  assert.ok(fixtures.some((fixture) => fixture.validation !== undefined));
});

for (const name of names) {
  test(`${name} parses to itself`, () => {
    const fixture = JSON.parse(readFileSync(new URL(name, DIR), "utf8")) as Record<string, unknown>;
    const { durationMs, stateLost, validation, stateRestored, ...kernel } = fixture;
    assert.equal(typeof durationMs, "number");
    assert.equal(typeof stateLost, "boolean");
    assert.ok(validation === undefined || typeof validation === "object");
    // Only a run that lost its worker can have had a save loaded back.
    assert.ok(stateRestored === undefined || (stateLost === true && typeof stateRestored === "object"));
    // The host's own record of the run's tool calls: what a kernel sends there is dropped.
    const { toolCalls, ...audit } = kernel.audit as Record<string, unknown>;
    assert.ok(toolCalls === undefined || Array.isArray(toolCalls));
    const fromKernel = { ...kernel, audit };
    assert.deepEqual(parseKernelResult(fromKernel), fromKernel);
  });
}
