// What the model is told about a run: compact, capped, and honest about what was lost.
import type { ExecutionResult } from "../../protocol/types.js";
import { chartSummaries } from "./chart-summary.js";

export const MODEL_TEXT_CAP = 6_000;

/** Keep the head and tail of long text: errors tend to be at the end, context at the start. */
export function capText(text: string, cap = MODEL_TEXT_CAP): string {
  if (text.length <= cap) return text;
  const head = Math.floor(cap * 0.4);
  const tail = cap - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n… [${omitted} characters omitted] …\n${text.slice(-tail)}`;
}

/** The outcome without its prefix: `DEADLINE_EXCEEDED`, as the code-execution APIs name it. */
export const shortOutcome = (result: ExecutionResult): string => result.outcome.replace(/^OUTCOME_/, "");

export interface ModelResultOptions {
  /** Pass on the kernel's repair hints (`error.hint`, `hint`); default true. */
  hints?: boolean;
}

/** The result as JSON: the content of a `tool` message, answering a native tool call. */
export function resultForModel(result: ExecutionResult, options: ModelResultOptions = {}): string {
  return JSON.stringify(modelReport(result, options), null, 1);
}

/**
 * The same report as plain text, for a call written as text (answered in a user message): small
 * models read printed output far better than a JSON string full of `\n` escapes.
 */
export function resultTextForModel(result: ExecutionResult, options: ModelResultOptions = {}): string {
  return reportText(modelReport(result, options));
}

/** A report (`key: value`, nested objects indented, multi-line values on their own lines). */
export function reportText(report: Record<string, unknown>): string {
  const lines: string[] = [];
  const add = (key: string, value: unknown, indent = ""): void => {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      lines.push(`${indent}${key}:`);
      for (const [inner, v] of Object.entries(value)) add(inner, v, `${indent}  `);
    } else {
      const text = Array.isArray(value) ? value.join("; ") : String(value);
      lines.push(text.includes("\n") ? `${indent}${key}:\n${text.trimEnd()}` : `${indent}${key}: ${text}`);
    }
  };
  for (const [key, value] of Object.entries(report)) add(key, value);
  return lines.join("\n");
}

function modelReport(result: ExecutionResult, options: ModelResultOptions): Record<string, unknown> {
  const hints = options.hints ?? true;
  const images = result.displays.filter((d) => d.mime.startsWith("image/")).length;
  const report: Record<string, unknown> = { outcome: shortOutcome(result) };
  if (result.stdout) report.stdout = capText(result.stdout);
  if (result.stderr) report.stderr = capText(result.stderr, MODEL_TEXT_CAP / 2);
  if (result.truncated) report.truncated = "output was cut at the sandbox's cap";
  if (result.value) report.value = capText(result.value["text/plain"] ?? "", MODEL_TEXT_CAP / 2);
  if (result.error) {
    report.error = {
      name: result.error.name,
      message: capText(result.error.message, 1_000),
      traceback: capText(result.error.traceback, MODEL_TEXT_CAP / 2),
    };
    if (hints && result.error.hint) (report.error as Record<string, unknown>).hint = result.error.hint;
  }
  if (hints && result.hint) report.hint = result.hint;
  if (images) report.images = `${images} image(s) shown to the user`;
  const charts = chartSummaries(result);
  if (charts.length) report.charts = charts.map((chart) => `${chart} (shown to the user, interactive)`);
  if (result.files.length) report.files = result.files.map((f) => `${f.path} (${f.size} bytes)`);
  if (result.stateRestored?.whileIdle) {
    const { restored, notRestored } = result.stateRestored;
    report.stateLost = true;
    report.note =
      "before this run the sandbox's worker was lost while idle and restarted with the variables of " +
      `its last save (${restored.join(", ") || "none"}); files kept; this run ran after that` +
      (notRestored.length ? `; not restored, compute again: ${notRestored.map((v) => v.name).join(", ")}` : "");
  } else if (result.stateRestored) {
    const { restored, notRestored } = result.stateRestored;
    report.stateLost = true;
    report.note =
      "the sandbox restarted and got back the variables of its last save, from before this run " +
      `(${restored.join(", ") || "none"}); what this run changed in memory is gone, files kept` +
      (notRestored.length ? `; not restored: ${notRestored.map((v) => v.name).join(", ")}` : "");
  } else if (result.stateLost && result.outcome !== "OUTCOME_DEADLINE_EXCEEDED") {
    report.stateLost = true;
    report.note = "the sandbox was restarted: variables and imports from before are gone, files kept";
  } else if (result.outcome === "OUTCOME_DEADLINE_EXCEEDED") {
    report.stateLost = result.stateLost;
    report.note = result.stateLost
      ? "the run was stopped at its deadline and the sandbox restarted: variables are gone, files kept"
      : "the run was interrupted at its deadline; variables defined before it are still there";
  }
  return report;
}

/** A short plain-text rendering for transcripts and notebooks (`output` of a result part). */
export function outputText(result: ExecutionResult): string {
  const pieces = [result.stdout, result.stderr];
  if (result.value) pieces.push(result.value["text/plain"] ?? "");
  if (result.error) pieces.push(result.error.traceback || `${result.error.name}: ${result.error.message}`);
  if (result.error?.hint) pieces.push(`Hint: ${result.error.hint}`);
  return pieces.filter(Boolean).join("\n");
}
