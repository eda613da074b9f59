// Grounded answers: the numbers a model states in its final text must come from a run's output
// (stdout or value) or from the user's own messages. Formatting does not count: "1,060" is 1060,
// "55.10 %" is 0.551, and a number rounded to the digits it shows matches the exact one.
// Limits (docs/agent.md): single-digit integers, numbers in code, and numbers a model derives by
// reading (a count of listed items) are not checked; a number that happens to appear in some
// output is taken as grounded.

import type { Transcript } from "./transcript.js";

/** A number as written, and its value. */
export interface StatedNumber {
  text: string;
  value: number;
  /** Digits after the decimal point, as shown. */
  decimals: number;
  percent: boolean;
}

// A number with optional sign, thousands separators, decimals, exponent and percent sign; not
// glued to letters or underscores (identifiers like `x2`, `col_3`, hex) on either side.
const NUMBER = /(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s?%)?(?![\w])/g;

/** Fenced and inline code are code, not claims. */
const stripCode = (text: string): string => text.replace(/```[\s\S]*?(?:```|$)/g, " ").replace(/`[^`\n]*`/g, " ");

export function numbersIn(text: string): StatedNumber[] {
  const out: StatedNumber[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const raw = match[0];
    const percent = raw.endsWith("%");
    const body = raw.replace(/%$/, "").trim().replace(/−/g, "-").replace(/,/g, "");
    const value = Number(body);
    if (!Number.isFinite(value)) continue;
    const mantissa = body.split(/[eE]/)[0] ?? "";
    const decimals = mantissa.includes(".") ? mantissa.length - mantissa.indexOf(".") - 1 : 0;
    out.push({ text: raw.trim(), value, decimals, percent });
  }
  return out;
}

/** Claims worth checking: not code, not a single-digit integer (list numbers, "top 5", steps). */
export function claimsIn(text: string): StatedNumber[] {
  return numbersIn(stripCode(text)).filter(
    (n) => !(Number.isInteger(n.value) && n.decimals === 0 && Math.abs(n.value) < 10 && !n.percent),
  );
}

/**
 * Whether `claim` is `evidence` as shown: rounded to the claim's digits, as a percent of a
 * fraction or the reverse, or without its sign ("a 20.97 % drop" for -20.97).
 */
function matches(claim: StatedNumber, evidence: number): boolean {
  const tolerance = 0.5 * 10 ** -claim.decimals + 1e-9 * Math.max(1, Math.abs(claim.value));
  const stated = Math.abs(claim.value);
  return [evidence, evidence * 100, evidence / 100].some((e) => Math.abs(Math.abs(e) - stated) <= tolerance);
}

/**
 * The numbers of `answer` found in none of `sources` (runs' output, the user's messages), as
 * written, in the order stated, each once.
 */
export function ungroundedNumbers(answer: string, sources: string[]): string[] {
  const evidence = sources.flatMap((s) => numbersIn(s).map((n) => (n.percent ? n.value / 100 : n.value)));
  const missing: string[] = [];
  for (const claim of claimsIn(answer)) {
    if (evidence.some((e) => matches(claim, e))) continue;
    if (!missing.includes(claim.text)) missing.push(claim.text);
  }
  return missing;
}

/** What numbers may come from: every run's stdout and value so far, and the user's messages. */
export function groundingSources(transcript: Transcript): string[] {
  const sources: string[] = [];
  for (const turn of transcript.turns) {
    for (const part of turn.parts) {
      if (part.kind === "text" && turn.role === "user") sources.push(part.text);
      if (part.kind !== "code_execution_result") continue;
      const { stdout, value, displays } = part.result;
      sources.push(stdout, value?.["text/plain"] ?? "");
      for (const display of displays) if (display.mime.startsWith("text/")) sources.push(display.data);
    }
  }
  return sources.filter(Boolean);
}

/**
 * Asked once when an answer states numbers no run produced. With the last run's printed output
 * quoted: a small model that misread a result copies the right numbers from it.
 */
export const groundingRequest = (numbers: string[], lastOutput = "", runHow: string = RUN_HOW.tool): string =>
  `Your answer states numbers that no run printed or returned: ${numbers.join(", ")}. ` +
  "Do not state numbers you did not compute." +
  (lastOutput.trim()
    ? ` The last run printed:\n${lastOutput.trimEnd()}\nIf that answers the question, answer again quoting ` +
      `those printed values exactly; otherwise ${runHow} that prints what is missing, then answer.`
    : ` ${capitalised(runHow)} that computes and prints them, then answer again using only the printed values.`);

/**
 * Whether `answer` leaves the result out: the last run printed numbers worth checking and the
 * answer states none ("the output shows the top customers"). Small models narrate the run instead
 * of answering from it; the page shows the output, but the answer is what a reader takes away.
 */
export const omitsResult = (answer: string, lastOutput: string): boolean =>
  claimsIn(answer).length === 0 && claimsIn(lastOutput).length > 0;

/** Asked once when an answer gives none of the result the last run printed. */
export const resultRequest = (lastOutput: string): string =>
  `Your answer does not give the result. The last run printed:\n${lastOutput.trimEnd()}\n` +
  "Answer the question itself from that output, quoting its names and values exactly.";

/** How the model is told to run code, by the agent's `codeBlocks`. */
export const RUN_HOW = { tool: "call run_python with code", block: "write a ```python block" } as const;

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** What a failed run said: its error (or outcome), and the kernel's hint. */
export interface RunFailure {
  what: string;
  hint?: string | null;
}

/** Asked once when the model answers while the message's last run had failed. */
export const repairRequest = (failure: RunFailure, runHow: string = RUN_HOW.tool): string =>
  `Your last run failed: ${failure.what}.` +
  (failure.hint ? ` Hint: ${failure.hint}` : "") +
  ` Fix the program and ${runHow} to run it again; answer only from a run that worked.`;
