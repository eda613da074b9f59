// Notebooks that open again: a Jupyter notebook read as a transcript, the files its code used,
// the replay's comparison and where it stops, and the refusals of bad files.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExecutionResult } from "../../wasm_runtime/protocol/types.js";
import { Agent } from "../../wasm_runtime/sdk/agent/agent.js";
import { replayTranscript, sameOutput } from "../../wasm_runtime/sdk/agent/replay.js";
import { parseTranscript } from "../../wasm_runtime/sdk/agent/transcript-schema.js";
import { newTranscript, type Transcript } from "../../wasm_runtime/sdk/agent/transcript.js";
import { okResult, ScriptedChat } from "./agent-support.js";

Object.assign(globalThis, { __WASMBOX_FRAME_SHA256__: "test" });
const { fromNotebook } = await import("../../web/src/notebook/ipynb.js");
const { filesUsed } = await import("../../web/src/notebook/files-used.js");
const { readDocument, isDocument, MAX_OPEN_BYTES } = await import("../../web/src/notebook/open.js");
const { toNotebook } = await import("../../web/src/export/notebook.js");

const PNG = "iVBORw0KGgo=";
const jupyterNotebook = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: {},
  cells: [
    { cell_type: "markdown", metadata: {}, source: ["# Title\n", "Some *text*"] },
    {
      cell_type: "code",
      execution_count: 1,
      metadata: {},
      source: "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(len(df))",
      outputs: [{ output_type: "stream", name: "stdout", text: ["3\n"] }],
    },
    {
      cell_type: "code",
      execution_count: 2,
      metadata: {},
      source: "df.plot()",
      outputs: [
        { output_type: "execute_result", execution_count: 2, metadata: {}, data: { "text/plain": ["<Axes: >"] } },
        { output_type: "display_data", metadata: {}, data: { "image/png": `${PNG}\n`, "text/plain": "<Figure>" } },
        {
          output_type: "display_data",
          metadata: {},
          data: { "application/vnd.plotly.v1+json": { data: [] }, "text/plain": "Figure()" },
        },
      ],
    },
    {
      cell_type: "code",
      execution_count: 3,
      metadata: {},
      source: "1/0",
      outputs: [
        {
          output_type: "error",
          ename: "ZeroDivisionError",
          evalue: "division by zero",
          traceback: ["\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"],
        },
      ],
    },
    { cell_type: "raw", metadata: {}, source: "ignored" },
  ],
};

const resultsOf = (transcript: Transcript): ExecutionResult[] =>
  transcript.turns.flatMap((t) => t.parts).flatMap((p) => (p.kind === "code_execution_result" ? [p.result] : []));

test("a Jupyter notebook becomes markdown text and runs with their recorded outputs", () => {
  const transcript = fromNotebook(jupyterNotebook);
  const parts = transcript.turns.flatMap((t) => t.parts);
  assert.deepEqual(
    parts.map((p) => p.kind),
    ["text", ...Array(3).fill(["executable_code", "code_execution_result"]).flat()],
  );
  assert.equal(parts[0]?.kind === "text" && parts[0].text, "# Title\nSome *text*");
  const [printed, plotted, failed] = resultsOf(transcript);
  assert.equal(printed?.stdout, "3\n");
  assert.deepEqual(plotted?.value, { "text/plain": "<Axes: >" });
  assert.deepEqual(plotted?.displays, [
    { mime: "image/png", data: PNG },
    { mime: "application/vnd.plotly.v1+json", data: '{"data":[]}' },
    { mime: "text/plain", data: "Figure()" },
  ]);
  assert.equal(failed?.outcome, "OUTCOME_FAILED");
  assert.equal(failed?.error?.traceback, "ZeroDivisionError: division by zero");
});

test("our own export reads back with the same outputs, hints and user messages", () => {
  const transcript = fromNotebook(jupyterNotebook);
  transcript.turns.unshift({ role: "user", parts: [{ kind: "text", text: "plot it" }], at: "" });
  const failed = resultsOf(transcript)[2]!;
  failed.error!.hint = "Divide by something else.";
  const again = fromNotebook(JSON.parse(JSON.stringify(toNotebook(transcript))));
  assert.deepEqual(again.turns[0]?.parts, [{ kind: "text", text: "plot it" }]);
  const before = resultsOf(transcript);
  const after = resultsOf(again);
  assert.equal(after.length, 3);
  after.forEach((result, i) => assert.ok(sameOutput(before[i]!, result), `run ${i + 1} reads back the same`));
  assert.equal(after[2]?.error?.hint, "Divide by something else.");
  assert.equal(after[2]?.error?.traceback, "ZeroDivisionError: division by zero");
});

test("notebooks of another version or shape are refused with a reason", () => {
  assert.throws(() => fromNotebook({ nbformat: 3, worksheets: [] }), /nbformat 3; only nbformat 4/);
  assert.throws(() => fromNotebook([1, 2]), /not an object/);
  assert.throws(() => fromNotebook({ nbformat: 4, cells: {} }), /no list of cells/);
  const bad = { nbformat: 4, cells: [{ cell_type: "code", source: 42, outputs: [] }] };
  assert.throws(() => fromNotebook(bad), /cell 1\.source is not text/);
});

test("files the code read are asked for; files it wrote first are not", () => {
  const transcript = newTranscript(null);
  const result = okResult("");
  result.audit.filesRead = ["audited.csv", "/usr/lib/python3/x.py"];
  transcript.turns.push({
    role: "user",
    at: "",
    parts: [
      {
        kind: "executable_code",
        callId: "a",
        language: "python",
        code: "df = pd.read_csv('sales.csv')\ndf.to_csv(\"out.csv\")\nopen('log.txt', 'w')\nurl = 'https://x/y.csv'",
      },
      { kind: "code_execution_result", callId: "a", outcome: "OUTCOME_OK", output: "", result },
      { kind: "executable_code", callId: "b", language: "python", code: "pd.read_csv('out.csv'); open('notes.txt')" },
    ],
  });
  assert.deepEqual(filesUsed(transcript), ["sales.csv", "audited.csv", "notes.txt"]);
});

test("outputs compare as normalised text, images by type only", () => {
  const a = okResult("x at 0x7f00aa12\r\nline  \n\n");
  const b = okResult("x at 0x7fffbb34\nline");
  assert.ok(sameOutput(a, b));
  a.displays = [{ mime: "image/png", data: "AAAA" }];
  b.displays = [{ mime: "image/png", data: "BBBB" }];
  assert.ok(sameOutput(a, b), "another image of the same type is the same");
  b.displays = [];
  assert.ok(!sameOutput(a, b), "a missing image differs");
  assert.ok(!sameOutput(okResult("3\n"), okResult("4\n")));
});

/** A sandbox that answers each code with the result scripted for it. */
function scriptedSandbox(results: Record<string, ExecutionResult>) {
  const ran: string[] = [];
  return {
    ran,
    execute: async (code: string) => {
      ran.push(code);
      return results[code] ?? okResult("");
    },
  };
}

function transcriptOf(...runs: [code: string, recorded: ExecutionResult][]): Transcript {
  const transcript = newTranscript(null);
  transcript.turns.push({
    role: "model",
    at: "",
    parts: runs.flatMap(([code, result], i) => [
      { kind: "executable_code" as const, callId: `run_${i + 1}`, language: "python" as const, code },
      { kind: "code_execution_result" as const, callId: `run_${i + 1}`, outcome: result.outcome, output: "", result },
    ]),
  });
  return transcript;
}

test("a replay goes past a failure the recording had, and stops at a new one", async () => {
  const failed = okResult("", "OUTCOME_FAILED");
  const transcript = transcriptOf(["np.zeros(2)", failed], ["print(1)", okResult("1\n")], ["after", okResult("")]);
  const sandbox = scriptedSandbox({ "np.zeros(2)": failed, "print(1)": okResult("", "OUTCOME_FAILED") });
  const report = await replayTranscript(sandbox, transcript);
  assert.deepEqual(sandbox.ran, ["np.zeros(2)", "print(1)"]);
  assert.deepEqual(
    report.runs.map((r) => r.same),
    [true, false],
  );
  assert.deepEqual(report.stopped, { callId: "run_2", reason: "failed" });
  assert.deepEqual(report.notRun, ["run_3"]);
});

test("Agent.create({ transcript, replay: true }) runs the transcript's code before it resolves", async () => {
  const transcript = transcriptOf(["x = 41", okResult("")], ["print(x + 1)", okResult("42\n")]);
  const sandbox = scriptedSandbox({ "print(x + 1)": okResult("42\n") });
  const agent = await Agent.create({ sandbox, model: "m", chat: new ScriptedChat().fn, transcript, replay: true });
  assert.deepEqual(sandbox.ran, ["x = 41", "print(x + 1)"]);
  assert.equal(
    agent.replayed?.runs.every((r) => r.same),
    true,
  );
  assert.equal(agent.transcript.turns.length, 1, "the transcript is not changed");
  await assert.rejects(
    Agent.create({ sandbox, model: "m", chat: new ScriptedChat().fn, replay: true }),
    /needs the transcript/,
  );
});

test("files that are not JSON, too large, or not a transcript are refused by name", async () => {
  const file = (text: string, name = "x.ipynb") => new File([text], name);
  await assert.rejects(readDocument(file("{oops")), /x\.ipynb cannot be opened: it is not JSON/);
  await assert.rejects(readDocument(file('{"a": 1}')), /neither a Jupyter notebook/);
  const huge = { name: "big.ipynb", size: MAX_OPEN_BYTES + 1 } as File;
  await assert.rejects(
    readDocument(huge),
    /big\.ipynb cannot be opened: it is 64\.0 MB, and notebooks and transcripts up to 64 MB/,
  );
  const transcript = { format: "wasmbox-transcript", version: 1, model: null, turns: [{ role: "x" }] };
  await assert.rejects(readDocument(file(JSON.stringify(transcript), "t.json")), /turns\.0\.role/);
  const good = transcriptOf(["print(1)", okResult("1\n")]);
  const opened = await readDocument(file(JSON.stringify(good), "t.json"));
  assert.deepEqual(opened.transcript, parseTranscript(good));
  assert.equal(await isDocument(file(JSON.stringify(good), "t.json")), true);
  assert.equal(await isDocument(file('[{"a": 1}]', "data.json")), false);
});

test("a chart spec over the cap is not drawn from a notebook either", () => {
  const spec = { data: [{ y: "x".repeat(21_000_000) }] };
  const notebook = {
    nbformat: 4,
    cells: [
      {
        cell_type: "code",
        source: "fig",
        outputs: [
          { output_type: "display_data", data: { "application/vnd.plotly.v1+json": spec, "text/plain": "Figure" } },
        ],
      },
    ],
  };
  const [result] = resultsOf(fromNotebook(notebook));
  assert.equal(result?.displays.length, 1);
  assert.equal(result?.displays[0]?.mime, "text/plain");
  assert.match(result?.displays[0]?.data ?? "", /^Figure\nchart not shown: .* over the 21 MB cap$/);
});
