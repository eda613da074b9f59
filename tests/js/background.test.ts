// Work nothing waits for (sdk/background.ts) runs only once no sandbox is starting or running code.
// Node's mock timers step the clock: "not yet" is checked past the moment the task would have run.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { inBackground, noteActivity, whenIdle } from "../../wasm_runtime/sdk/background.js";

const IDLE_STEP_MS = 50; // Node has no requestIdleCallback: the idle moment is a 50 ms timer
const MAX_WAIT_MS = 30_000;

function mockedClock(t: TestContext): (ms: number) => void {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  return (ms) => t.mock.timers.tick(ms);
}

test("a task waits while a sandbox is busy and runs once it is not", (t) => {
  const tick = mockedClock(t);
  const sandbox = {};
  noteActivity(sandbox, true);
  let ran = false;
  inBackground(() => (ran = true));
  tick(IDLE_STEP_MS * 10);
  assert.equal(ran, false);
  noteActivity(sandbox, false);
  tick(IDLE_STEP_MS);
  assert.equal(ran, true);
});

test("a task waits for every busy sandbox, and runs once", (t) => {
  const tick = mockedClock(t);
  const [first, second] = [{}, {}];
  noteActivity(first, true);
  noteActivity(second, true);
  let runs = 0;
  inBackground(() => runs++);
  noteActivity(first, false);
  tick(IDLE_STEP_MS * 10);
  assert.equal(runs, 0);
  noteActivity(second, false);
  noteActivity(first, true); // busy again before the idle moment: the task waits on
  tick(IDLE_STEP_MS * 10);
  assert.equal(runs, 0);
  noteActivity(first, false);
  tick(IDLE_STEP_MS);
  noteActivity(first, true);
  noteActivity(first, false);
  tick(IDLE_STEP_MS * 10);
  assert.equal(runs, 1);
});

test("a page that keeps a sandbox busy still gets the task done after the longest wait", (t) => {
  const tick = mockedClock(t);
  const sandbox = {};
  noteActivity(sandbox, true);
  let ran = false;
  inBackground(() => (ran = true));
  tick(MAX_WAIT_MS - 1);
  assert.equal(ran, false);
  tick(1);
  assert.equal(ran, true);
  noteActivity(sandbox, false);
});

test("whenIdle resolves at the idle moment when nothing is busy", async (t) => {
  const tick = mockedClock(t);
  let idle = false;
  const waited = whenIdle().then(() => (idle = true));
  tick(IDLE_STEP_MS);
  await waited;
  assert.equal(idle, true);
});
