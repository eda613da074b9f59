// Results made outside the kernel, when it could not answer: by the worker (a run interrupted
// before its cell) and by the host (a killed or crashed worker). Shared, so both build one shape.
import type { Audit, ErrorInfo, KernelResult, Outcome } from "./types.js";

export function emptyAudit(codeSha256: string): Audit {
  return {
    codeSha256,
    filesRead: [],
    filesWritten: [],
    networkAttempts: [],
    importedModules: [],
    peakMemoryBytes: null,
    toolCalls: [],
  };
}

/** What a run streamed before it ended without a kernel result. */
export interface Streamed {
  stdout: string;
  stderr: string;
  truncated: boolean;
}

export const nothingStreamed = (): Streamed => ({
  stdout: "",
  stderr: "",
  truncated: false,
});

export const errorInfo = (name: string, message: string): ErrorInfo => ({
  name,
  message,
  traceback: "",
});

/** A result for a run the kernel did not finish: what it streamed so far, and why it ended. */
export function resultWithoutKernel(
  outcome: Outcome,
  error: ErrorInfo,
  streamed: Streamed,
  codeSha256: string,
): KernelResult {
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
