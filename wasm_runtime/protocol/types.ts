// The typed protocol between the host page (SDK), the sandbox frame and its worker.
// Both sides import this file. What the sandbox sends is defined once, in schema.ts, and its
// types are derived here; the host runs everything that arrives through `validate.ts`.

import type * as v from "valibot";
import type * as schema from "./schema.js";

import announcedImports from "./announced-imports.json";

export { LIMITS } from "./limits.js";

export const OUTCOMES = [
  "OUTCOME_OK",
  "OUTCOME_FAILED",
  "OUTCOME_DEADLINE_EXCEEDED",
  "OUTCOME_MEMORY_EXCEEDED",
  "OUTCOME_POLICY_VIOLATION",
  "OUTCOME_CANCELLED",
] as const;

/**
 * The memory snapshot a worker starts from: "base" (the interpreter and the kernel imported),
 * "packages" (the same with numpy, pandas and cloudpickle imported, for a session that needs no
 * other package: builder/package_snapshot.py) or "plot" (the same as a spare that preloaded
 * matplotlib and drew a first figure, for new spares once the page has kept its files). A worker
 * that cannot use the one asked for boots from the base one; `booted` says which it used
 * ("none": no snapshot at all).
 */
export const START_SNAPSHOTS = ["base", "packages", "plot"] as const;
export type StartSnapshot = (typeof START_SNAPSHOTS)[number];
export const BOOTED_FROM = ["packages", "plot", "base", "none"] as const;
export type BootedFrom = (typeof BOOTED_FROM)[number];
/**
 * When a worker holds `memoryBudgetBytes`: "during-run" (growth of its memory past the budget is
 * refused, so the allocation raises MemoryError in the run and the state is kept), or
 * "after-run" (the host compares the run's figure once it ends, and restarts an engine over it).
 */
export const MEMORY_BUDGET_HELD = ["during-run", "after-run"] as const;
export type MemoryBudgetHeld = (typeof MEMORY_BUDGET_HELD)[number];

/** The only runtime file names the host fetches for a worker: flat names in /runtime/, no paths. */
export const RUNTIME_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$/;

/** A tool's name: a Python identifier the sandbox's `wasmbox.tools` can offer as an attribute. */
export const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/**
 * The top-level modules whose first import in a worker it tells the host during the run (an
 * `imported` message, once per module per worker): a page readies what such a run will likely
 * show (a chart library's frame, docs/charts.md). Only these names ever cross: the message
 * carries no other data from the run. The one list, in announced-imports.json, is the kernel's
 * too (wasmbox_kernel/protocol_data.py).
 */
export const ANNOUNCED_IMPORTS: readonly string[] = announcedImports;

/** What Python may ask the host during a run: a tool's answer, or a line for input(). */
export const HOST_CALL_KINDS = ["tool", "input"] as const;
export type HostCallKind = (typeof HOST_CALL_KINDS)[number];

// What the sandbox sends: derived from the schemas in schema.ts.
export type Outcome = (typeof OUTCOMES)[number];
export type MimeBundle = v.InferOutput<typeof schema.MimeBundleSchema>;
export type Display = v.InferOutput<typeof schema.DisplaySchema>;
export type FileInfo = v.InferOutput<typeof schema.FileInfoSchema>;
export type ErrorInfo = v.InferOutput<typeof schema.ErrorInfoSchema>;
export type NetworkAttempt = v.InferOutput<typeof schema.NetworkAttemptSchema>;
export type Audit = v.InferOutput<typeof schema.AuditSchema>;
/** One tool call of a run in `audit.toolCalls`, as the host recorded it. */
export type ToolCallRecord = v.InferOutput<typeof schema.ToolCallRecordSchema>;
export type PolicyInfo = v.InferOutput<typeof schema.PolicyInfoSchema>;
export type KernelResult = v.InferOutput<typeof schema.KernelResultSchema>;
/** The kernel's report, plus what the host adds: the page's storage (`navigator.storage`), where persisted sandboxes live. */
export type Environment = v.InferOutput<typeof schema.EnvironmentSchema> & {
  storage?: { usage: number | null; quota: number | null; persisted: boolean | null };
  /** The host tools the sandbox's Python may call (`from wasmbox import tools`). */
  tools?: ToolSpec[];
};
/** A variable that could not be saved or restored, and why. */
export type SkippedVariable = v.InferOutput<typeof schema.SkippedVariableSchema>;
/** The kernel's pickled variables, the ones it could not pickle, and the packages they need. */
export type SavedState = v.InferOutput<typeof schema.SavedStateSchema>;
export type LimitInfo = v.InferOutput<typeof schema.LimitInfoSchema>;
export type WorkerMessage = v.InferOutput<typeof schema.WorkerMessageSchema>;
export type RuntimeFileRequest = Extract<WorkerMessage, { type: "fetch-runtime" }>;
export type HostCall = Extract<WorkerMessage, { type: "host-call" }>;
/** Everything the worker posts but its requests: replies and events. */
export type WorkerReply = Exclude<WorkerMessage, RuntimeFileRequest | HostCall>;

/** The outcome of the SDK's `expect` check on a run's value. */
export type Validation = v.InferOutput<typeof schema.ValidationSchema>;
/** The SDK's result: DESIGN.md's `ExecutionResult`, the kernel's result plus what the host adds. */
export type ExecutionResult = v.InferOutput<typeof schema.ExecutionResultSchema>;
/** What a restarted persisted sandbox loaded from its last save. */
export type StateRestored = v.InferOutput<typeof schema.StateRestoredSchema>;

export type PolicyRules = { allowModules?: string[]; denyModules?: string[]; maxCodeBytes?: number };
export type Policy = "default" | "off" | PolicyRules;

/** Per-sandbox kernel settings, sent once when a booted worker is claimed. */
export interface KernelConfig {
  policy: Policy;
  packages: string[];
  allowInstall: boolean;
  stdoutLimit: number;
  stderrLimit: number;
  /** The worker refuses to grow its memory past this many bytes (see MemoryBudgetHeld). */
  memoryBudgetBytes: number;
}

export type StreamName = "stdout" | "stderr";

// Host → worker, over the MessagePort the frame hands to the host. Every request has an `id`
// that its reply echoes; an `execute` request's `id` is also its run's id, which the run's
// `stream` messages and the frame's `cell-started` carry and an interrupt names.
export type WorkerRequest =
  | { type: "configure"; id: number; config: KernelConfig }
  | { type: "execute"; id: number; code: string; host?: RunHost }
  | { type: "write-file"; id: number; path: string; data: Uint8Array }
  | { type: "read-file"; id: number; path: string }
  // Many files in one round trip (the mirror's copy after a run, a session's save): a run that
  // wrote thousands of small files waited a round trip for each. A path the worker cannot read
  // (gone, over the cap) is left out of the reply, as a failed `read-file` of it would be skipped.
  | { type: "read-files"; id: number; paths: string[] }
  | { type: "list-files"; id: number }
  | { type: "environment"; id: number }
  | { type: "describe-files"; id: number }
  // `quietMs`: each step waits until no other request has come or ended for that long (a spare's
  // idle preload, which a session that claimed it must not wait for); else only for no cell.
  | { type: "preload"; id: number; packages: string[]; quietMs?: number }
  // A spare nobody waits for runs throwaway cells (sandbox/rehearsal.ts), and with `exercise`
  // warms the interpreter's code for the page's first heavy cell; it stops at the next request.
  | { type: "rehearse"; id: number; exercise: boolean }
  // A persisted session's variables (sdk/session-state.ts): pickled out after runs, back into a
  // new worker on resume, after the `packages` they need are loaded.
  | { type: "save-state"; id: number }
  | { type: "load-state"; id: number; data: Uint8Array; packages: string[] };

// Host → worker, answering `fetch-runtime`. The opaque frame's HTTP cache is a new partition on
// every visit, so the worker asks the host page, whose cache persists, for runtime files. A Blob is
// a file the page had stored (sdk/runtime-store.ts): it crosses by reference and the worker reads it.
export type RuntimeFileReply = {
  type: "runtime-file";
  fetchId: number;
  data: Uint8Array | Blob | null;
  error: string | null;
};

/** A tool as the sandbox sees it: its name, what it does, and its Python signature. */
export interface ToolSpec {
  name: string;
  description: string;
  /** e.g. `lookup_price(*, sku: str) -> Any`: made by the host from the tool's JSON Schema. */
  signature: string;
}

/** What a run may ask the host: its tools, and whether input() gets an answer. */
export interface RunHost {
  tools: ToolSpec[];
  input: boolean;
}

/**
 * Host → worker, answering `host-call`: over the port when the call awaits, or through the frame
 * (FrameHostAnswer) into the shared answer line when the worker is blocked. `value` is JSON text
 * when `ok`; otherwise `error` says why, and `stopped` that the run is being stopped.
 */
export type HostAnswer = {
  type: "host-answer";
  callId: number;
  ok: boolean;
  value: string;
  error: string;
  stopped: boolean;
};

/** Everything the host posts to the worker over the port. */
export type HostMessage = WorkerRequest | RuntimeFileReply | HostAnswer;

/** What every worker fetches while it boots (Pyodide's own files and the start-up snapshot). */
export const BOOT_FILES = [
  "manifest.json",
  "pyodide-lock.json",
  "python_stdlib.zip",
  "pyodide.asm.wasm",
  "snapshot.bin",
];

/**
 * Host → frame → worker, unasked: a file of the start's `pushed` list, as soon as the host page has it.
 * The frame reads a boot file's Blob (a file the page had stored) while the worker's script still
 * compiles, and hands the worker the bytes: a transfer inside the sandbox's own process. The
 * package snapshot's files reach the worker as the host sent them, a Blob unread, so the worker
 * compiles each side module from its own part of the bundle as that part is read.
 */
export type RuntimeFilePush = {
  type: "runtime-file-push";
  file: string;
  data: Uint8Array | Blob | null;
  error: string | null;
};

/** The most files a start may say it pushes (the boot files and the package snapshot's). */
export const MAX_PUSHED_FILES = 16;

/**
 * The files the host pushes to a worker starting from `snapshot`, each as soon as it has it; the
 * worker asks for any other file. A package or plot boot gets that snapshot's files (`packageFiles`)
 * instead of the base snapshot, which it asks for only if it has to fall back to it.
 */
export function pushedFiles(snapshot: StartSnapshot, packageFiles: readonly string[]): string[] {
  if (snapshot === "base") return [...BOOT_FILES];
  return [...BOOT_FILES.filter((file) => file !== "snapshot.bin"), ...packageFiles];
}

// Host → frame (window.postMessage; the frame checks `event.source === parent`): interrupt the
// run whose `execute` request had this `id`.
export type FrameRequest = { type: "interrupt"; id: number } | HostAnswer;
// Host → frame, once, in answer to `frame-loaded`: the worker's script, where the runtime is and
// which snapshot to start from, which files it pushes (pushedFiles); then a RuntimeFilePush for each.
export type FrameStart = {
  type: "start";
  script: Blob;
  runtimeUrl: string;
  snapshot: StartSnapshot;
  pushed: string[];
};
// Frame → worker, once: FrameStart's settings, the interrupt buffer and the host's port.
export type WorkerBoot = {
  type: "boot";
  runtimeUrl: string;
  snapshot: StartSnapshot;
  pushed: string[];
  interrupt: SharedArrayBuffer | null;
  /** Where a blocked worker reads the host's answer (sandbox/host-calls.ts); null where nothing can block. */
  answers: SharedArrayBuffer | null;
  port: MessagePort;
};

// Frame → host (window.postMessage; the host checks `event.source === iframe.contentWindow`).
// `cell-started`: in answer to an `interrupt`, run `id` had begun its cell (its packages are in),
// as the worker marks on the interrupt line; the watchdog's grace then counts from the deadline.
export type FrameReply =
  | { type: "frame-loaded" }
  | { type: "frame-ready"; port: MessagePort; isolated: boolean }
  | { type: "worker-crashed"; message: string }
  | { type: "cell-started"; id: number };
