// The host's side of memoryBudgetBytes: a worker that holds the budget itself is left alone, one
// that cannot (an older worker, a Pyodide whose growth the guard cannot see) is checked after.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWorkerMessage } from "../../wasm_runtime/protocol/validate.ts";
import { resultWithoutKernel, nothingStreamed } from "../../wasm_runtime/protocol/results.ts";
import { overBudget, overBudgetAfterRun } from "../../wasm_runtime/sdk/memory-budget.ts";

const BUDGET = 100;
const ran = (peak: number) => {
  const result = resultWithoutKernel("OUTCOME_OK", null, nothingStreamed(), "");
  result.audit.peakMemoryBytes = peak;
  return result;
};

/** An engine that records whether it was killed. */
const engine = (memoryBudget: "during-run" | "after-run") => {
  const killed: string[] = [];
  return { memoryBudget, killed, kill: (reason?: string) => void killed.push(reason ?? "") };
};

test("a worker that holds the budget during the run is not checked after it", () => {
  const holding = engine("during-run");
  assert.equal(overBudgetAfterRun(holding, ran(BUDGET * 2), BUDGET), false);
  assert.deepEqual(holding.killed, []);
});

test("a worker that cannot hold it is checked against the run's figure, and killed when over", () => {
  const within = engine("after-run");
  assert.equal(overBudgetAfterRun(within, ran(BUDGET), BUDGET), false);
  assert.deepEqual(within.killed, []);
  const over = engine("after-run");
  assert.equal(overBudgetAfterRun(over, ran(BUDGET + 1), BUDGET), true);
  assert.deepEqual(over.killed, ["memory budget exceeded"]);
});

test("a run found over the budget after it ends says so, with the figures", () => {
  const result = ran(BUDGET + 1);
  overBudget(result, BUDGET, null);
  assert.equal(result.outcome, "OUTCOME_MEMORY_EXCEEDED");
  assert.match(result.error!.message, /used 101 bytes .* memoryBudgetBytes of 100; the sandbox was restarted/);
});

test("a booted message without memoryBudget is a worker that checks after the run", () => {
  const booted = { type: "booted", isolated: true, bootMs: 1, snapshot: "base" };
  const parsed = parseWorkerMessage(booted);
  assert.ok(parsed.ok && parsed.value.type === "booted" && parsed.value.memoryBudget === "after-run");
  const refused = parseWorkerMessage({ ...booted, memoryBudget: "sometimes" });
  assert.ok(!refused.ok && refused.refusal.field === "memoryBudget");
});
