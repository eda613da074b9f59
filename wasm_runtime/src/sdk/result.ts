// Results the host makes itself, when the worker could not answer (killed, crashed, broken).
import type { Audit, ErrorInfo, ExecutionResult, KernelResult, Outcome } from "../protocol.js";

export async function sha256Hex(data: string | ArrayBuffer): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function emptyAudit(codeSha256: string): Audit {
  return { codeSha256, filesRead: [], filesWritten: [], networkAttempts: [], importedModules: [], peakMemoryBytes: null };
}

export interface Streamed {
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/** A result for a run whose worker is gone: what it streamed so far, and why it ended. */
export function hostResult(outcome: Outcome, error: ErrorInfo, streamed: Streamed, codeSha256: string): KernelResult {
  return {
    outcome,
    stdout: streamed.stdout,
    stderr: streamed.stderr,
    truncated: streamed.truncated,
    value: null,
    displays: [],
    files: [],
    error,
    audit: emptyAudit(codeSha256),
    policy: null,
  };
}

export const hostError = (name: string, message: string): ErrorInfo => ({ name, message, traceback: "" });

/** The result of a run whose signal was aborted while it waited in the queue: it never ran. */
export async function cancelledBeforeStart(code: string): Promise<ExecutionResult> {
  const error = hostError("CancelledError", "cancelled before it started");
  const result = hostResult("OUTCOME_CANCELLED", error, { stdout: "", stderr: "", truncated: false }, await sha256Hex(code));
  return { ...result, durationMs: 0, stateLost: false };
}
