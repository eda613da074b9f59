// What the model is told about a run: a restarted persisted sandbox's restore is named, never
// reported as "variables are gone".
import assert from "node:assert/strict";
import { test } from "node:test";
import { resultForModel } from "../../wasm_runtime/sdk/agent/model-result.js";
import { okResult } from "./agent-support.js";

test("a deadline restart without a save says the variables are gone", () => {
  const report = JSON.parse(resultForModel({ ...okResult("", "OUTCOME_DEADLINE_EXCEEDED"), stateLost: true }));
  assert.equal(report.stateLost, true);
  assert.match(report.note, /variables are gone/);
});

test("a restart that loaded the last save names what came back and what did not", () => {
  const result = {
    ...okResult("", "OUTCOME_DEADLINE_EXCEEDED"),
    stateLost: true,
    stateRestored: { savedAt: 1, restored: ["df", "x"], notRestored: [{ name: "gen", reason: "a generator" }] },
  };
  const report = JSON.parse(resultForModel(result));
  assert.equal(report.stateLost, true);
  assert.match(report.note, /last save, from before this run \(df, x\)/);
  assert.match(report.note, /not restored: gen/);
  assert.doesNotMatch(report.note, /variables are gone/);
});

test("a worker lost while idle is named on the next run's result, with what came back", () => {
  const result = {
    ...okResult("3"),
    stateLost: true,
    stateRestored: {
      savedAt: 1,
      restored: ["x"],
      notRestored: [{ name: "gen", reason: "a generator" }],
      whileIdle: true,
      reason: "the Python runtime failed",
    },
  };
  const report = JSON.parse(resultForModel(result));
  assert.equal(report.outcome, "OK");
  assert.equal(report.stateLost, true);
  assert.match(report.note, /lost while idle .* last save \(x\)/);
  assert.match(report.note, /compute again: gen/);
});

test("a restart with no save to go back to says the variables are gone", () => {
  const report = JSON.parse(resultForModel({ ...okResult("3"), stateLost: true }));
  assert.match(report.note, /variables and imports from before are gone/);
});
