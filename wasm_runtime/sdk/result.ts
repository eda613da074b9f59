// Results the SDK makes itself, for runs that never reached a worker.
import { errorInfo, nothingStreamed, resultWithoutKernel } from "../protocol/results.js";
import type { ExecutionResult } from "../protocol/types.js";
import { sha256Hex } from "./hash.js";

/** The result of a run whose signal was aborted while it waited in the queue: it never ran. */
export async function cancelledBeforeStart(code: string): Promise<ExecutionResult> {
  const error = errorInfo("CancelledError", "cancelled before it started");
  const result = resultWithoutKernel("OUTCOME_CANCELLED", error, nothingStreamed(), await sha256Hex(code));
  return { ...result, durationMs: 0, stateLost: false };
}
