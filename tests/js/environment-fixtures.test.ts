// What `environment()` returns (tests/fixtures/sdk-environments/): the worker's part passes the
// host's schema unchanged, and the host's additions are exactly mode, modeReason, storage,
// snapshot and tools.
// The Python client's pydantic model reads the same files (tests/client/test_results.py).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import * as v from "valibot";
import { EnvironmentSchema } from "../../wasm_runtime/protocol/schema.js";
import { BOOTED_FROM } from "../../wasm_runtime/protocol/types.js";
import type { SandboxEnvironment } from "../../wasm_runtime/sdk/sandbox.js";

const DIR = new URL("../fixtures/sdk-environments/", import.meta.url);
const names = readdirSync(DIR).filter((n) => n.endsWith(".json"));

test("the fixtures cover both modes a browser can give", () => {
  const modes = names.map((name) => (JSON.parse(readFileSync(new URL(name, DIR), "utf8")) as SandboxEnvironment).mode);
  assert.deepEqual(modes.sort(), ["interrupt", "terminate-only"]);
});

for (const name of names) {
  test(`${name}: the worker's part passes the schema unchanged`, () => {
    const fixture = JSON.parse(readFileSync(new URL(name, DIR), "utf8")) as SandboxEnvironment;
    const { mode, modeReason, storage, snapshot, tools, ...fromWorker } = fixture;
    assert.ok(tools.every((tool) => typeof tool.signature === "string" && tool.signature.startsWith(tool.name)));
    assert.ok(mode === "interrupt" || mode === "terminate-only");
    assert.ok(BOOTED_FROM.includes(snapshot));
    assert.equal(modeReason === null, mode === "interrupt");
    assert.ok(storage && "usage" in storage && "quota" in storage && "persisted" in storage);
    assert.deepEqual(v.parse(EnvironmentSchema, fromWorker), fromWorker);
  });
}

test("an environment without its loader log is refused", () => {
  const fixture = JSON.parse(readFileSync(new URL(names[0]!, DIR), "utf8")) as Record<string, unknown>;
  const fromWorker = Object.fromEntries(
    Object.entries(fixture).filter(([key]) => !["mode", "modeReason", "storage", "snapshot"].includes(key)),
  );
  assert.equal(v.safeParse(EnvironmentSchema, fromWorker).success, true);
  delete fromWorker.log;
  assert.equal(v.safeParse(EnvironmentSchema, fromWorker).success, false);
});
