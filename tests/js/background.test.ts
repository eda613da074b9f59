// Work nothing waits for (sdk/background.ts) runs only once no sandbox is starting or running code.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { inBackground, noteActivity, whenIdle } from "../../wasm_runtime/sdk/background.js";

test("a task waits while a sandbox is busy and runs once it is not", async () => {
  const sandbox = {};
  noteActivity(sandbox, true);
  let ran = false;
  inBackground(() => (ran = true));
  await sleep(200);
  assert.equal(ran, false);
  noteActivity(sandbox, false);
  await sleep(200);
  assert.equal(ran, true);
});

test("a task waits for every busy sandbox, and runs once", async () => {
  const [first, second] = [{}, {}];
  noteActivity(first, true);
  noteActivity(second, true);
  let runs = 0;
  inBackground(() => runs++);
  noteActivity(first, false);
  await sleep(200);
  assert.equal(runs, 0);
  noteActivity(second, false);
  noteActivity(first, true); // busy again before the idle moment: the task waits on
  await sleep(200);
  assert.equal(runs, 0);
  noteActivity(first, false);
  await sleep(200);
  noteActivity(first, true);
  noteActivity(first, false);
  await sleep(200);
  assert.equal(runs, 1);
});

test("whenIdle resolves at once when nothing is busy", async () => {
  const settled = await Promise.race([whenIdle().then(() => "idle"), sleep(1_000).then(() => "late")]);
  assert.equal(settled, "idle");
});
