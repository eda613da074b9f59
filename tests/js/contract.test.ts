// The contract between the kernel and the host: every golden result the real kernel produced
// (tests/kernel/test_result_fixtures.py writes tests/fixtures/kernel-results/) passes the host's
// validator unchanged, so no field the kernel sends is refused or silently dropped.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { checkKernelResult } from "../../wasm_runtime/protocol/validate.ts";

const dir = new URL("../fixtures/kernel-results/", import.meta.url);
const names = readdirSync(dir).filter((name) => name.endsWith(".json"));

test("there are golden results to check", () => {
  assert.ok(names.length >= 8, `only ${names.length} fixtures in ${dir.pathname}`);
});

for (const name of names) {
  test(`the kernel's ${name} passes the host's validator unchanged`, () => {
    const result: unknown = JSON.parse(readFileSync(new URL(name, dir), "utf8"));
    const parsed = checkKernelResult(result);
    assert.ok(parsed.ok, parsed.ok ? "" : `${parsed.refusal.field}: ${parsed.refusal.problem}`);
    assert.deepEqual(parsed.value, result);
  });
}
