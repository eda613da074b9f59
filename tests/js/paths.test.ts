// The file-name rules both sides of the sandbox apply (wasm_runtime/protocol/paths.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { pathProblem, shadowedModule } from "../../wasm_runtime/protocol/paths.js";

test("plain relative names are accepted", () => {
  for (const name of ["data.csv", "out/plot.png", "a b/c-d_e.txt"]) assert.equal(pathProblem(name), null, name);
});

test("names that escape, hide or lie are refused with a reason", () => {
  const refused: [string, RegExp][] = [
    ["", /empty/],
    ["/etc/passwd", /relative/],
    ["../up.txt", /segments/],
    ["a//b", /segments/],
    ["a\\b", /backslash/],
    ["evil\u202etxt.exe", /bidirectional/],
    ["x".repeat(2000), /longer than 1024/],
  ];
  for (const [name, reason] of refused) assert.match(pathProblem(name) ?? "accepted", reason, JSON.stringify(name));
});

test("a file that would shadow a module names it", () => {
  assert.equal(shadowedModule("numpy.py"), "numpy");
  assert.equal(shadowedModule("pandas/__init__.py"), "pandas");
  assert.equal(shadowedModule("data.csv"), "");
});
