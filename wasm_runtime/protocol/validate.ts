// The host's check of every message from the sandbox, against the schemas in schema.ts.
import * as v from "valibot";
import { KernelResultSchema, WorkerMessageSchema } from "./schema.js";
import type { KernelResult, WorkerMessage } from "./types.js";

/** A message the host refused: the field at fault, why, and the request it answered (if any). */
export interface Refusal {
  /** Dotted path inside the message, e.g. "files" or "result.audit.filesRead"; "" for the whole. */
  field: string;
  problem: string;
  /** The `id` it carried, when that is an integer: the call it answered, which must now end. */
  id: number | null;
  type: string | null;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

function refusalOf(data: unknown, issues: [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]): Refusal {
  const issue = issues[0];
  const raw = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  return {
    field: v.getDotPath(issue) ?? "",
    problem: issue.message,
    id: Number.isSafeInteger(raw.id) ? (raw.id as number) : null,
    type: typeof raw.type === "string" ? raw.type.slice(0, 64) : null,
  };
}

/** A message from the worker, rebuilt from its validated fields, or why it was refused. */
export function parseWorkerMessage(data: unknown): Parsed<WorkerMessage> {
  const parsed = v.safeParse(WorkerMessageSchema, data, { abortEarly: true });
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, refusal: refusalOf(data, parsed.issues) };
}

/** A kernel result on its own, or why it was refused (the contract test uses this). */
export function checkKernelResult(data: unknown): Parsed<KernelResult> {
  const parsed = v.safeParse(KernelResultSchema, data, { abortEarly: true });
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, refusal: refusalOf(data, parsed.issues) };
}

/** A kernel result rebuilt from its validated fields, or null. */
export function parseKernelResult(data: unknown): KernelResult | null {
  const parsed = checkKernelResult(data);
  return parsed.ok ? parsed.value : null;
}
