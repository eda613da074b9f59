// A conversation as parts, the shape of Gemini's code-execution responses, so it can be shown,
// exported (JSON, .ipynb) and replayed.
import type { ExecutionResult, Outcome } from "../../protocol/types.js";

export type Part =
  | { kind: "text"; text: string }
  | { kind: "executable_code"; callId: string; language: "python"; code: string }
  | { kind: "code_execution_result"; callId: string; outcome: Outcome; output: string; result: ExecutionResult };

export interface Turn {
  role: "user" | "model";
  parts: Part[];
  at: string;
  /** The model that wrote a model turn (it can change between messages). */
  model?: string;
  /** How a model turn ended. */
  finish?: "answer" | "step-limit" | "stopped" | "error";
  /** Numbers the model's answer states that no run printed or returned (Agent `verify: "numbers"`). */
  ungrounded?: string[];
}

export interface Transcript {
  format: "wasmbox-transcript";
  version: 1;
  model: string | null;
  turns: Turn[];
}

export function newTranscript(model: string | null): Transcript {
  return { format: "wasmbox-transcript", version: 1, model, turns: [] };
}

export function startTurn(transcript: Transcript, role: Turn["role"]): Turn {
  const turn: Turn = { role, parts: [], at: new Date().toISOString() };
  transcript.turns.push(turn);
  return turn;
}

/** Append streamed text to the turn's last text part, or start one. */
export function appendText(turn: Turn, text: string): void {
  const last = turn.parts[turn.parts.length - 1];
  if (last?.kind === "text") last.text += text;
  else turn.parts.push({ kind: "text", text });
}
