// A Jupyter notebook (nbformat 4, ours or Jupyter's) as a transcript the log can show and "Run all"
// can replay: markdown cells as text, code cells as runs with their recorded outputs. Read field by
// field from untrusted JSON: anything of the wrong type is refused with the cell it is in.
import { LIMITS, OUTCOMES, outputText, type ExecutionResult, type Outcome, type Transcript, type Turn } from "wasmbox";

type Json = Record<string, unknown>;

export const MAX_CELLS = 10_000;

const CHART_MIMES = ["application/vnd.plotly.v1+json", "application/vnd.vegalite.v5+json"];
const IMAGE_MIMES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
// One output shows its richest form, as Jupyter does; a chart keeps its text as the caption.
const DISPLAY_ORDER = [...CHART_MIMES, ...IMAGE_MIMES, "image/svg+xml", "text/html", "text/markdown", "text/plain"];

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

class Refused extends Error {
  override name = "NotebookError";
}

/** nbformat keeps text as a string or a list of lines. */
function textOf(value: unknown, where: string): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((line) => typeof line === "string")) return value.join("");
  throw new Refused(`${where} is not text`);
}

/** A MIME bundle's data as text: chart specs (JSON objects) as JSON text, images without line breaks. */
function bundleOf(data: unknown, where: string): Record<string, string> {
  if (!isObject(data)) throw new Refused(`${where}.data is not a MIME bundle`);
  const bundle: Record<string, string> = {};
  for (const [mime, value] of Object.entries(data)) {
    if (mime.length > 256) continue;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) bundle[mime] = JSON.stringify(value);
    else bundle[mime] = textOf(value, `${where}.data["${mime}"]`);
    if (IMAGE_MIMES.includes(mime)) bundle[mime] = bundle[mime]!.replace(/\s+/g, "");
  }
  // A chart spec over the sandbox's cap is not drawn from a file either.
  for (const mime of CHART_MIMES) {
    const spec = bundle[mime];
    if (spec === undefined || spec.length <= LIMITS.maxChartBytes) continue;
    delete bundle[mime];
    const note = `chart not shown: its ${mime} spec is ${(spec.length / 1e6).toFixed(1)} MB, over the ${(LIMITS.maxChartBytes / 1e6).toFixed(0)} MB cap`;
    bundle["text/plain"] = `${bundle["text/plain"] ?? ""}\n${note}`.trim();
  }
  return bundle;
}

// Jupyter's tracebacks are coloured with terminal escapes.
const plain = (line: string): string => line.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");

function emptyResult(outcome: Outcome): ExecutionResult {
  return {
    outcome,
    stdout: "",
    stderr: "",
    truncated: false,
    value: null,
    displays: [],
    files: [],
    error: null,
    audit: {
      codeSha256: "",
      filesRead: [],
      filesWritten: [],
      networkAttempts: [],
      importedModules: [],
      peakMemoryBytes: null,
    },
    policy: null,
    durationMs: 0, // not recorded in a notebook: the log shows no time
    stateLost: false,
  };
}

function resultOf(cell: Json, where: string): ExecutionResult {
  const outputs = cell.outputs ?? [];
  if (!Array.isArray(outputs)) throw new Refused(`${where}.outputs is not a list`);
  const wasmbox = isObject(cell.metadata) && isObject(cell.metadata.wasmbox) ? cell.metadata.wasmbox : {};
  const hint = typeof wasmbox.hint === "string" ? wasmbox.hint.slice(0, 1000) : undefined;
  const failed = outputs.some((o) => isObject(o) && o.output_type === "error");
  const recorded = typeof wasmbox.outcome === "string" && (OUTCOMES as readonly string[]).includes(wasmbox.outcome);
  const result = emptyResult((recorded ? wasmbox.outcome : failed ? "OUTCOME_FAILED" : "OUTCOME_OK") as Outcome);
  outputs.forEach((output: unknown, i) => {
    const at = `${where}.outputs[${i}]`;
    if (!isObject(output)) throw new Refused(`${at} is not an output`);
    switch (output.output_type) {
      case "stream":
        if (output.name === "stderr") result.stderr += textOf(output.text, `${at}.text`);
        else result.stdout += textOf(output.text, `${at}.text`);
        return;
      case "display_data": {
        const bundle = bundleOf(output.data, at);
        const mime = DISPLAY_ORDER.find((m) => bundle[m] !== undefined);
        if (!mime) return;
        result.displays.push({ mime, data: bundle[mime]! });
        if (CHART_MIMES.includes(mime) && bundle["text/plain"] !== undefined)
          result.displays.push({ mime: "text/plain", data: bundle["text/plain"] });
        return;
      }
      case "execute_result":
        result.value = bundleOf(output.data, at);
        return;
      case "error": {
        const traceback = Array.isArray(output.traceback) ? output.traceback.map((l) => plain(String(l))) : [];
        // Our export adds the repair hint as the last line; it is the cell's `hint` again.
        if (hint && traceback[traceback.length - 1] === `Hint: ${hint}`) traceback.pop();
        result.error = {
          name: typeof output.ename === "string" ? output.ename : "Error",
          message: typeof output.evalue === "string" ? output.evalue : "",
          traceback: traceback.join("\n"),
          ...(hint ? { hint } : {}),
        };
        return;
      }
      default:
        return; // an output type this app does not show (e.g. update_display_data)
    }
  });
  if (hint && !result.error) result.hint = hint;
  return result;
}

/** The notebook's cells as turns: a user's message (our export's "**User:**" cells) starts a turn. */
export function fromNotebook(notebook: unknown): Transcript {
  if (!isObject(notebook)) throw new Refused("not a notebook: the file is JSON but not an object");
  if (notebook.nbformat !== 4) {
    const version = typeof notebook.nbformat === "number" ? `nbformat ${notebook.nbformat}` : "no nbformat version";
    throw new Refused(`this notebook has ${version}; only nbformat 4 notebooks open here (Jupyter saves version 4)`);
  }
  const cells = notebook.cells;
  if (!Array.isArray(cells)) throw new Refused("not a notebook: it has no list of cells");
  if (cells.length > MAX_CELLS)
    throw new Refused(`the notebook has ${cells.length} cells; up to ${MAX_CELLS} open here`);
  const metadata = isObject(notebook.metadata) && isObject(notebook.metadata.wasmbox) ? notebook.metadata.wasmbox : {};
  const transcript: Transcript = {
    format: "wasmbox-transcript",
    version: 1,
    model: typeof metadata.model === "string" ? metadata.model : null,
    turns: [],
  };
  let turn: Turn | null = null;
  const at = new Date().toISOString();
  const modelTurn = (): Turn => {
    if (turn?.role !== "model") transcript.turns.push((turn = { role: "model", parts: [], at }));
    return turn;
  };
  cells.forEach((cell: unknown, i) => {
    const where = `cell ${i + 1}`;
    if (!isObject(cell)) throw new Refused(`${where} is not a cell`);
    const source = textOf(cell.source, `${where}.source`);
    if (cell.cell_type === "markdown") {
      const fromUser = isObject(cell.metadata) && cell.metadata.role === "user";
      if (fromUser) {
        transcript.turns.push(
          (turn = { role: "user", parts: [{ kind: "text", text: source.replace(/^\*\*User:\*\* /, "") }], at }),
        );
      } else if (source.trim()) {
        modelTurn().parts.push({ kind: "text", text: source });
      }
    } else if (cell.cell_type === "code") {
      const callId = `cell_${i + 1}`;
      const result = resultOf(cell, where);
      const parts = (turn ?? modelTurn()).parts;
      parts.push({ kind: "executable_code", callId, language: "python", code: source });
      parts.push({
        kind: "code_execution_result",
        callId,
        outcome: result.outcome,
        output: outputText(result),
        result,
      });
    }
    // raw cells are not shown
  });
  return transcript;
}
