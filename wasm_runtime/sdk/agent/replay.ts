// Replay a transcript's code into a sandbox, in order, so a restored conversation (or an opened
// notebook) has its variables again; each run is compared with the one recorded.
//
// It stops at the first run that fails where the recording did not, as Jupyter's "Run all" stops
// at an error: later cells would only fail on what is missing. A failure the recording also had
// is part of what it reproduces (agent transcripts often hold a failed attempt and its fix).
import type { ExecutionResult } from "../../protocol/types.js";
import type { Tools } from "../tools.js";
import type { RunSandbox } from "./record.js";
import type { Transcript } from "./transcript.js";

export interface ReplayedRun {
  callId: string;
  code: string;
  /** The recorded result, if the transcript had one. */
  recorded: ExecutionResult | null;
  result: ExecutionResult;
  /** The output matches the recorded one (see `sameOutput`); true when nothing was recorded. */
  same: boolean;
}

export interface ReplayReport {
  runs: ReplayedRun[];
  /** Why the replay ended early: the call that failed where the recording did not, or a stop. */
  stopped: { callId: string; reason: "failed" | "aborted" } | null;
  /** Runs of the transcript not replayed because it stopped early. */
  notRun: string[];
}

export interface ReplayOptions {
  signal?: AbortSignal;
  /** Given to each run, as the agent's own runs get them. */
  tools?: Tools;
  /** Before each run. */
  onStart?: (callId: string) => void;
  /** After each run. */
  onRun?: (run: ReplayedRun) => void;
}

interface Step {
  callId: string;
  code: string;
  recorded: ExecutionResult | null;
}

/** The transcript's code runs in order, each with its recorded result (if any). */
export function replaySteps(transcript: Transcript): Step[] {
  const results = new Map<string, ExecutionResult>();
  for (const turn of transcript.turns)
    for (const part of turn.parts) if (part.kind === "code_execution_result") results.set(part.callId, part.result);
  return transcript.turns.flatMap((turn) =>
    turn.parts.flatMap((part) =>
      part.kind === "executable_code"
        ? [{ callId: part.callId, code: part.code, recorded: results.get(part.callId) ?? null }]
        : [],
    ),
  );
}

export async function replayTranscript(
  sandbox: RunSandbox,
  transcript: Transcript,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const steps = replaySteps(transcript);
  const report: ReplayReport = { runs: [], stopped: null, notRun: [] };
  for (const [i, step] of steps.entries()) {
    if (options.signal?.aborted) {
      report.stopped = { callId: step.callId, reason: "aborted" };
      report.notRun = steps.slice(i).map((s) => s.callId);
      break;
    }
    options.onStart?.(step.callId);
    const result = await sandbox.execute(step.code, {
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.tools ? { tools: options.tools } : {}),
    });
    const run = { ...step, result, same: step.recorded === null || sameOutput(step.recorded, result) };
    report.runs.push(run);
    options.onRun?.(run);
    const failedAnew = result.outcome !== "OUTCOME_OK" && step.recorded?.outcome !== result.outcome;
    const reason = options.signal?.aborted ? "aborted" : failedAnew ? "failed" : null;
    if (reason) {
      report.stopped = { callId: step.callId, reason };
      report.notRun = steps.slice(i + 1).map((s) => s.callId);
      break;
    }
  }
  return report;
}

/**
 * Text compared after normalising what differs between runs of the same code: line endings,
 * trailing spaces and blank lines, and object addresses (`at 0x7f…`). Tracebacks are compared by
 * the error's name and message only (their frames name the run).
 */
export function normalisedText(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\b0x[0-9a-f]{4,}\b/gi, "0x…")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
}

const TEXT_MIMES = ["text/plain", "text/html", "text/markdown", "text/latex", "application/json"];

/** What is compared of a MIME bundle or display: text as normalised text, anything else by type only. */
function shapeOf(mime: string, data: string): string {
  return TEXT_MIMES.includes(mime) ? `${mime}:${normalisedText(data)}` : mime;
}

/** The parts of a result a reader sees, normalised; images and charts by type only. */
export function outputShape(result: ExecutionResult): string[] {
  const shape = [
    `outcome:${result.outcome}`,
    `stdout:${normalisedText(result.stdout)}`,
    `stderr:${normalisedText(result.stderr)}`,
  ];
  for (const display of result.displays) shape.push(`display:${shapeOf(display.mime, display.data)}`);
  for (const [mime, data] of Object.entries(result.value ?? {}).sort(([a], [b]) => a.localeCompare(b)))
    shape.push(`value:${shapeOf(mime, data)}`);
  if (result.error) shape.push(`error:${result.error.name}:${normalisedText(result.error.message)}`);
  return shape;
}

/** Whether a new run's output matches the recorded one (`outputShape`). */
export function sameOutput(recorded: ExecutionResult, now: ExecutionResult): boolean {
  const a = outputShape(recorded);
  const b = outputShape(now);
  return a.length === b.length && a.every((entry, i) => entry === b[i]);
}
