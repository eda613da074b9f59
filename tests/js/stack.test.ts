// Which engine a sandbox worker runs in, for its measured C-stack depth (wasm_runtime/sandbox/stack.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { cStackLevels, engineOf } from "../../wasm_runtime/sandbox/stack.js";

const AGENTS = {
  chromium:
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36",
  firefox: "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0",
  webkit: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15",
} as const;

test("each engine is told from its user agent, Chromium's 'Safari' notwithstanding", () => {
  for (const [engine, agent] of Object.entries(AGENTS)) assert.equal(engineOf(agent), engine);
});

test("an engine not measured has no figure, rather than another engine's", () => {
  assert.equal(engineOf("Mozilla/5.0 (compatible; SomethingElse/1.0)"), null);
  assert.equal(cStackLevels("Mozilla/5.0 (compatible; SomethingElse/1.0)"), null);
});
