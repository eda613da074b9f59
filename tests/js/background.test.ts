// Work nothing waits for (sdk/background.ts) runs only once no sandbox of the page (its Activity)
// is starting or running code.
// Node's mock timers step the clock: "not yet" is checked past the moment the task would have run.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { Activity } from "../../wasm_runtime/sdk/activity.js";
import { BUSY_WHILE_MAX_MS, busyWhile, inBackground, whenIdle } from "../../wasm_runtime/sdk/background.js";

const IDLE_STEP_MS = 50; // Node has no requestIdleCallback: the idle moment is a 50 ms timer
const MAX_WAIT_MS = 30_000;

function mockedClock(t: TestContext): (ms: number) => void {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  return (ms) => t.mock.timers.tick(ms);
}

test("a task waits while a sandbox is busy and runs once it is not", (t) => {
  const tick = mockedClock(t);
  const activity = new Activity();
  const sandbox = {};
  activity.note(sandbox, true);
  let ran = false;
  inBackground(activity, () => (ran = true));
  tick(IDLE_STEP_MS * 10);
  assert.equal(ran, false);
  activity.note(sandbox, false);
  tick(IDLE_STEP_MS);
  assert.equal(ran, true);
});

test("a task waits for every busy sandbox, and runs once", (t) => {
  const tick = mockedClock(t);
  const activity = new Activity();
  const [first, second] = [{}, {}];
  activity.note(first, true);
  activity.note(second, true);
  let runs = 0;
  inBackground(activity, () => runs++);
  activity.note(first, false);
  tick(IDLE_STEP_MS * 10);
  assert.equal(runs, 0);
  activity.note(second, false);
  activity.note(first, true); // busy again before the idle moment: the task waits on
  tick(IDLE_STEP_MS * 10);
  assert.equal(runs, 0);
  activity.note(first, false);
  tick(IDLE_STEP_MS);
  activity.note(first, true);
  activity.note(first, false);
  tick(IDLE_STEP_MS * 10);
  assert.equal(runs, 1);
});

test("a page that keeps a sandbox busy still gets the task done after the longest wait", (t) => {
  const tick = mockedClock(t);
  const activity = new Activity();
  const sandbox = {};
  activity.note(sandbox, true);
  let ran = false;
  inBackground(activity, () => (ran = true));
  tick(MAX_WAIT_MS - 1);
  assert.equal(ran, false);
  tick(1);
  assert.equal(ran, true);
  activity.note(sandbox, false);
});

test("whenIdle resolves at the idle moment when nothing is busy", async (t) => {
  const tick = mockedClock(t);
  const activity = new Activity();
  let idle = false;
  const waited = whenIdle(activity).then(() => (idle = true));
  tick(IDLE_STEP_MS);
  await waited;
  assert.equal(idle, true);
});

test("another page's busy sandbox does not hold a task back", (t) => {
  const tick = mockedClock(t);
  const [busy, activity] = [new Activity(), new Activity()];
  busy.note({}, true);
  let ran = false;
  inBackground(activity, () => (ran = true));
  tick(IDLE_STEP_MS);
  assert.equal(ran, true);
});

test("page work held with busyWhile holds a task back until it settles", async (t) => {
  const tick = mockedClock(t);
  const activity = new Activity();
  let finish = (): void => undefined;
  busyWhile(activity, new Promise<void>((resolve) => (finish = resolve)));
  let ran = false;
  inBackground(activity, () => (ran = true));
  tick(IDLE_STEP_MS * 10);
  assert.equal(ran, false);
  finish();
  await Promise.resolve(); // the settling is seen a microtask later
  await Promise.resolve();
  tick(IDLE_STEP_MS);
  assert.equal(ran, true);
});

test("work that never settles, or fails, holds background work back no longer than its limit", async (t) => {
  const tick = mockedClock(t);
  const activity = new Activity();
  busyWhile(activity, new Promise(() => undefined)); // never settles
  busyWhile(activity, Promise.reject(new Error("chart failed")));
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(activity.busy, true);
  tick(BUSY_WHILE_MAX_MS - 1);
  assert.equal(activity.busy, true);
  tick(1);
  assert.equal(activity.busy, false);
});
