// The reply parser's edges: calls it must refuse with a reason, and text it must leave alone.
import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyReply, textToolCalls } from "../../wasm_runtime/sdk/agent/reply-forms.js";

const call = (code: string): string => JSON.stringify({ name: "run_python", arguments: { code } });

test("several Hermes calls in one reply are all found, in order", () => {
  const reply = classifyReply(`<tool_call>${call("a = 1")}</tool_call>\n<tool_call>${call("print(a)")}</tool_call>`);
  assert.equal(reply.form, "hermes");
  assert.deepEqual(reply.calls, [{ code: "a = 1" }, { code: "print(a)" }]);
});

test("a Hermes call with broken JSON is a call with a problem, not an answer", () => {
  const reply = classifyReply('<tool_call>{"name": "run_python", "arguments": {"code": "print(1)</tool_call>');
  assert.equal(reply.form, "hermes");
  assert.match((reply.calls[0] as { problem: string }).problem, /not valid JSON/);
});

test("a call to another tool is refused by name", () => {
  const reply = classifyReply('<tool_call>{"name": "web_search", "arguments": {"q": "x"}}</tool_call>');
  assert.deepEqual(reply.calls, [{ problem: 'there is no tool named "web_search"' }]);
});

test("functions.run_python: with broken JSON is a problem, with nothing after it too", () => {
  assert.match(JSON.stringify(classifyReply('functions.run_python:\n{"code": "print(').calls), /not valid JSON/);
  assert.match(JSON.stringify(classifyReply("functions.run_python:").calls), /no code/);
});

test("arguments sent twice back to back (a server's streaming bug) are read once", () => {
  const args = JSON.stringify({ code: "print(1)" });
  const reply = classifyReply("", [
    { id: "a", type: "function", function: { name: "run_python", arguments: args + args } },
  ]);
  assert.deepEqual(reply.calls, [{ code: "print(1)" }]);
});

test("prose, inline code and unrelated JSON are an answer", () => {
  for (const text of [
    "The answer is 42.",
    "Use `print(x)` to see it.",
    '```json\n{"name": "Ada", "age": 36}\n```',
    "```\nplain output\n```",
  ]) {
    assert.equal(classifyReply(text).form, "none", text);
  }
});

test("Python triple-quoted code inside a Hermes call is read as written", () => {
  const reply = classifyReply(
    '<tool_call>\n{"name": "run_python", "arguments": {"code": """\nx = "a\\nb"\nprint(x)\n"""}}\n</tool_call>',
  );
  assert.equal(reply.form, "hermes");
  assert.deepEqual(reply.calls, [{ code: '\nx = "a\\nb"\nprint(x)\n' }]);
});

test("a docstring in shown code does not make the reply a call", () => {
  const reply = classifyReply('Here is how:\n```python\ndef f():\n    """{"name": "run_python"}"""\n```');
  assert.equal(reply.form, "bare-python");
});

test("python blocks are one program; a block calling run_python like a function runs the string it passes", () => {
  assert.deepEqual(classifyReply("a\n```python\nx = 1\n```\nb\n```py\n  \nprint(x)\n```").calls, [
    { code: "x = 1\n\nprint(x)" },
  ]);
  const wrapped =
    'Run:\n```python\nfrom tools import run_python\n\nresult = run_python("""\n    def f():\n        return 1\n    print(f())\n""")\n```';
  assert.deepEqual(classifyReply(wrapped), {
    form: "bare-python",
    calls: [{ code: "def f():\n    return 1\nprint(f())" }],
  });
  assert.deepEqual(classifyReply('```python\nrun_python(code="print(1)\\nprint(2)")\n```').calls, [
    { code: "print(1)\nprint(2)" },
  ]);
  // The tool imported as a module: the line goes, the program stays.
  assert.deepEqual(classifyReply("```python\nfrom tools import run_python\nx = 2\nprint(x)\n```").calls, [
    { code: "x = 2\nprint(x)" },
  ]);
  assert.deepEqual(classifyReply("```python\nfrom tools import run_python, other\n```").calls, [
    { code: "from tools import run_python, other" },
  ]);
  // A name that only contains run_python is not a call of it.
  assert.deepEqual(classifyReply('```python\nmy_run_python("x")\n```').calls, [{ code: 'my_run_python("x")' }]);
});

// textToolCalls: the same text forms for a loop that offers tools of its own (one per function).
const OFFERED = ["get_order", "get_price"];

test("a fenced JSON call to an offered tool is read with its keyword arguments", () => {
  const found = textToolCalls('```json\n{"name": "get_order", "arguments": {"order_id": "A-1"}}\n```', OFFERED);
  assert.deepEqual(found, { form: "fenced-json", calls: [{ name: "get_order", arguments: { order_id: "A-1" } }] });
});

test("Hermes calls to offered tools are all read, in order; arguments as JSON text too", () => {
  const text =
    '<tool_call>{"name": "get_order", "arguments": {"order_id": "A-1"}}</tool_call>\n' +
    '<tool_call>{"name": "get_price", "arguments": "{\\"sku\\": \\"B-2\\"}"}</tool_call>';
  assert.deepEqual(textToolCalls(text, OFFERED).calls, [
    { name: "get_order", arguments: { order_id: "A-1" } },
    { name: "get_price", arguments: { sku: "B-2" } },
  ]);
});

test("functions.name: lines and arguments written beside the name are read", () => {
  assert.deepEqual(textToolCalls('functions.get_price:\n{"sku": "B-2"}', OFFERED).calls, [
    { name: "get_price", arguments: { sku: "B-2" } },
  ]);
  assert.deepEqual(textToolCalls('{"name": "get_price", "sku": "B-2"}', OFFERED).calls, [
    { name: "get_price", arguments: { sku: "B-2" } },
  ]);
});

test("a tool not offered, arguments that are not an object, and run_python are refused by name", () => {
  assert.deepEqual(textToolCalls('<tool_call>{"name": "run_python", "arguments": {}}</tool_call>', OFFERED).calls, [
    { problem: 'there is no tool named "run_python"' },
  ]);
  assert.deepEqual(textToolCalls("functions.get_price: B-2", OFFERED).calls, [
    { problem: "the arguments of get_price are not valid JSON" },
  ]);
  assert.deepEqual(textToolCalls('<tool_call>{"name": "get_price", "arguments": [1]}</tool_call>', OFFERED).calls, [
    { problem: "the arguments of get_price must be a JSON object of keyword arguments" },
  ]);
});

test("prose, python blocks and plain JSON data are no tool call", () => {
  for (const text of ["The total is 31.62.", "```python\nprint(1)\n```", '```json\n{"name": "Ada"}\n```']) {
    assert.deepEqual(textToolCalls(text, OFFERED), { form: "none", calls: [] }, text);
  }
});
