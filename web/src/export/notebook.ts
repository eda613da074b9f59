// A transcript as a Jupyter notebook (nbformat 4.5): prose as markdown cells, each run as a code
// cell with its real outputs, so it opens in Jupyter and re-runs there.
import type { ExecutionResult, Part, Transcript } from "wasmbox";

type Output = Record<string, unknown>;
interface Cell {
  id: string;
  cell_type: "markdown" | "code";
  metadata: Record<string, unknown>;
  source: string;
  execution_count?: number | null;
  outputs?: Output[];
}

/** nbformat stores multi-line strings as lists of lines, each keeping its newline. */
const lines = (text: string): string[] => text.split(/(?<=\n)/);

// Jupyter renders these from a JSON object; the sandbox sends the spec as JSON text.
const JSON_OBJECT_MIMES = ["application/vnd.plotly.v1+json", "application/vnd.vegalite.v5+json"];

/** A MIME bundle as nbformat stores it: chart specs as objects (text that is not JSON stays text). */
function mimeData(bundle: Record<string, string>): Record<string, unknown> {
  const data: Record<string, unknown> = { ...bundle };
  for (const mime of JSON_OBJECT_MIMES) {
    if (bundle[mime] === undefined) continue;
    try {
      data[mime] = JSON.parse(bundle[mime]);
    } catch {
      delete data[mime];
    }
  }
  return data;
}

function outputsOf(result: ExecutionResult, count: number): Output[] {
  const outputs: Output[] = [];
  if (result.stdout) outputs.push({ output_type: "stream", name: "stdout", text: lines(result.stdout) });
  if (result.stderr) outputs.push({ output_type: "stream", name: "stderr", text: lines(result.stderr) });
  const displays = result.displays;
  for (let i = 0; i < displays.length; i++) {
    const bundle = { [displays[i]!.mime]: displays[i]!.data };
    // A chart's text fallback follows it: one output with both, as Jupyter's kernels send it.
    if (JSON_OBJECT_MIMES.includes(displays[i]!.mime) && displays[i + 1]?.mime === "text/plain") {
      bundle["text/plain"] = displays[++i]!.data;
    }
    outputs.push({ output_type: "display_data", data: mimeData(bundle), metadata: {} });
  }
  if (result.value) {
    outputs.push({ output_type: "execute_result", execution_count: count, data: mimeData(result.value), metadata: {} });
  }
  if (result.error) {
    outputs.push({
      output_type: "error",
      ename: result.error.name,
      evalue: result.error.message,
      traceback: [...result.error.traceback.split("\n"), ...(result.error.hint ? [`Hint: ${result.error.hint}`] : [])],
    });
  }
  return outputs;
}

/** The kernel's repair hint, kept with the cell when the run had one. */
function hintOf(result: ExecutionResult | undefined): { hint?: string } {
  const hint = result?.error?.hint ?? result?.hint;
  return hint ? { hint } : {};
}

export function toNotebook(transcript: Transcript): object {
  const cells: Cell[] = [];
  const results = new Map<string, ExecutionResult>();
  for (const turn of transcript.turns) {
    for (const part of turn.parts) if (part.kind === "code_execution_result") results.set(part.callId, part.result);
  }
  let count = 0;
  const id = (): string => `cell-${cells.length + 1}`;
  for (const turn of transcript.turns) {
    for (const part of turn.parts as Part[]) {
      if (part.kind === "text" && part.text.trim()) {
        const who = turn.role === "user" ? "**User:** " : "";
        cells.push({ id: id(), cell_type: "markdown", metadata: { role: turn.role }, source: who + part.text });
      } else if (part.kind === "executable_code") {
        count += 1;
        const result = results.get(part.callId);
        cells.push({
          id: id(),
          cell_type: "code",
          metadata: { wasmbox: { outcome: result?.outcome ?? null, ...hintOf(result) } },
          source: part.code,
          execution_count: count,
          outputs: result ? outputsOf(result, count) : [],
        });
      }
    }
  }
  return {
    cells,
    metadata: {
      kernelspec: { name: "python3", display_name: "Python 3", language: "python" },
      language_info: { name: "python" },
      wasmbox: { model: transcript.model, exported: new Date().toISOString() },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
}
