// Every recorded (or hand-written, labelled so) model output in tests/fixtures/model-outputs/ goes
// through the reply parser, which must find the form and the code the file expects.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ToolCall } from "../../wasm_runtime/sdk/agent/chat-types.js";
import { classifyReply } from "../../wasm_runtime/sdk/agent/reply-forms.js";

const FOLDER = join(import.meta.dirname, "..", "fixtures", "model-outputs");
const FORMS = ["tool_calls", "fenced-json", "hermes", "functions-prefix", "bare-python", "none"];

interface Fixture {
  source: string;
  content: string | null;
  tool_calls: { id?: string; type?: string; function: { name: string; arguments: unknown } }[] | null;
  /** `calls`, when given: every call of the reply, `{ code }` or `{ problem }`, in order. */
  expect: { form: string; code: string | null; calls?: ({ code: string } | { problem: string })[] };
}

const files = readdirSync(FOLDER).filter((name) => name.endsWith(".json"));

test("the fixture folder has outputs in every form", () => {
  const forms = new Set(
    files.map((name) => (JSON.parse(readFileSync(join(FOLDER, name), "utf8")) as Fixture).expect.form),
  );
  for (const form of FORMS) assert.ok(forms.has(form), `no fixture of form ${form}`);
});

for (const name of files) {
  test(`model output ${name}`, () => {
    const fixture = JSON.parse(readFileSync(join(FOLDER, name), "utf8")) as Fixture;
    assert.ok(typeof fixture.source === "string" && fixture.source, "every fixture names its source");
    assert.ok(FORMS.includes(fixture.expect.form), `unknown form ${fixture.expect.form}`);
    const calls: ToolCall[] = (fixture.tool_calls ?? []).map((call, i) => ({
      id: call.id ?? `call_${i}`,
      type: "function",
      function: {
        name: call.function.name,
        arguments:
          typeof call.function.arguments === "string"
            ? call.function.arguments
            : JSON.stringify(call.function.arguments),
      },
    }));
    const reply = classifyReply(fixture.content ?? "", calls);
    assert.equal(reply.form, fixture.expect.form, fixture.source);
    const first = reply.calls[0];
    const code = first && "code" in first ? first.code : null;
    if (fixture.expect.code === null) assert.equal(code, null, "no code expected");
    else assert.equal(code?.trim(), fixture.expect.code.trim(), fixture.source);
    if (fixture.expect.calls) assert.deepEqual(reply.calls, fixture.expect.calls, fixture.source);
  });
}
