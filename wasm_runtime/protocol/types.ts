// The typed protocol between the host page (SDK), the sandbox frame and its worker.
// Both sides import this file. Everything that arrives from the sandbox is untrusted: the host
// runs it through the parsers in `validate.ts`, which rebuild plain objects of these types.

export const OUTCOMES = [
  "OUTCOME_OK",
  "OUTCOME_FAILED",
  "OUTCOME_DEADLINE_EXCEEDED",
  "OUTCOME_MEMORY_EXCEEDED",
  "OUTCOME_POLICY_VIOLATION",
  "OUTCOME_CANCELLED",
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export type MimeBundle = Record<string, string>;
export interface Display {
  mime: string;
  data: string;
}
export interface FileInfo {
  path: string;
  size: number;
  mime: string;
}
export interface ErrorInfo {
  name: string;
  message: string;
  traceback: string;
}
export interface NetworkAttempt {
  kind: string;
  target: string;
}
export interface Audit {
  codeSha256: string;
  filesRead: string[];
  filesWritten: string[];
  networkAttempts: NetworkAttempt[];
  importedModules: string[];
  peakMemoryBytes: number | null;
}
export interface Validation {
  ok: boolean;
  errors: string[];
}

/** The policy rule that refused a run, and where. */
export interface PolicyInfo {
  rule: string;
  line: number | null;
  message: string;
}

/** What the kernel reports for one run (the worker adds the heap size). */
export interface KernelResult {
  outcome: Outcome;
  stdout: string;
  stderr: string;
  truncated: boolean;
  value: MimeBundle | null;
  displays: Display[];
  files: FileInfo[];
  error: ErrorInfo | null;
  audit: Audit;
  /** Set when the policy refused the run (an extension of DESIGN.md's result). */
  policy: PolicyInfo | null;
}

/** The SDK's result: DESIGN.md's `ExecutionResult` (`validation` only when `expect` was given). */
export interface ExecutionResult extends KernelResult {
  durationMs: number;
  stateLost: boolean;
  validation?: Validation;
  /** A persisted sandbox that lost its worker got its last save's variables back (this run's changes are gone). */
  stateRestored?: StateRestored;
}

/** What a restarted persisted sandbox loaded from its last save. */
export interface StateRestored {
  /** When that save was taken (ms since the epoch). */
  savedAt: number;
  restored: string[];
  notRestored: SkippedVariable[];
}

export type PolicyRules = {
  allowModules?: string[];
  denyModules?: string[];
  maxCodeBytes?: number;
};
export type Policy = "default" | "off" | PolicyRules;

/** Per-sandbox kernel settings, sent once when a booted worker is claimed. */
export interface KernelConfig {
  policy: Policy;
  packages: string[];
  allowInstall: boolean;
  stdoutLimit: number;
  stderrLimit: number;
}

export interface Environment {
  python: string;
  packages: Record<string, string>;
  limits: Record<string, unknown>;
  notes: string[];
  /** Added by the host: the page's storage (`navigator.storage`), where persisted sandboxes live. */
  storage?: {
    usage: number | null;
    quota: number | null;
    persisted: boolean | null;
  };
}

export type StreamName = "stdout" | "stderr";

/** A variable that could not be saved or restored, and why. */
export interface SkippedVariable {
  name: string;
  reason: string;
}

/** The kernel's pickled variables, the ones it could not pickle, and the packages they need. */
export interface SavedState {
  data: Uint8Array;
  skipped: SkippedVariable[];
  /** Runtime packages loaded when saved: loaded again before the state is restored. */
  packages: string[];
}

// Host → worker, over the MessagePort the frame hands to the host. Every request has an `id`
// that its reply echoes; an `execute` request's `id` is also its run's id, which the run's
// `stream` and `cell-started` messages carry and an interrupt names.
export type WorkerRequest =
  | { type: "configure"; id: number; config: KernelConfig }
  | { type: "execute"; id: number; code: string }
  | { type: "write-file"; id: number; path: string; data: Uint8Array }
  | { type: "read-file"; id: number; path: string }
  | { type: "list-files"; id: number }
  | { type: "environment"; id: number }
  | { type: "preload"; id: number; packages: string[] }
  // A spare nobody waits for runs throwaway cells (sandbox/rehearsal.ts), and with `exercise`
  // warms the interpreter's code for the page's first heavy cell; it stops at the next request.
  | { type: "rehearse"; id: number; exercise: boolean }
  // A persisted session's variables (sdk/session-state.ts): pickled out after runs, back into a
  // new worker on resume, after the `packages` they need are loaded.
  | { type: "save-state"; id: number }
  | { type: "load-state"; id: number; data: Uint8Array; packages: string[] };

// Worker → host: replies to requests (by `id`) and events of a run or of the worker.
export type WorkerReply =
  | { type: "booted"; isolated: boolean; bootMs: number }
  | { type: "stream"; id: number; name: StreamName; text: string }
  // The run's packages are in and its cell begins: from here an interrupt can stop it.
  | { type: "cell-started"; id: number }
  | { type: "result"; id: number; result: KernelResult }
  | { type: "done"; id: number }
  | { type: "file"; id: number; data: Uint8Array }
  | { type: "files"; id: number; files: FileInfo[] }
  | { type: "environment"; id: number; environment: Environment }
  | { type: "state"; id: number; state: SavedState }
  | {
      type: "state-loaded";
      id: number;
      restored: string[];
      failed: SkippedVariable[];
    }
  | { type: "failed"; id: number; error: ErrorInfo }
  | { type: "fatal"; error: ErrorInfo };

// Worker → host, the one request the worker makes: a runtime file's bytes. The opaque frame's
// HTTP cache is a new partition on every visit, so the worker asks the host page, whose cache
// persists. The host answers with a `RuntimeFileReply` carrying the same `fetchId`.
export type RuntimeFileRequest = {
  type: "fetch-runtime";
  fetchId: number;
  file: string;
};
export type RuntimeFileReply = {
  type: "runtime-file";
  fetchId: number;
  data: Uint8Array | null;
  error: string | null;
};

/** Everything the worker posts to the host. */
export type WorkerMessage = WorkerReply | RuntimeFileRequest;

/** Everything the host posts to the worker. */
export type HostMessage = WorkerRequest | RuntimeFileReply;

/** What every worker fetches while it boots (Pyodide's own files and the start-up snapshot). */
export const BOOT_FILES = [
  "manifest.json",
  "pyodide-lock.json",
  "python_stdlib.zip",
  "pyodide.asm.wasm",
  "snapshot.bin",
];

/** The only runtime file names the host fetches for a worker: flat names in /runtime/, no paths. */
export const RUNTIME_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$/;

// Host → frame (window.postMessage; the frame checks `event.source === parent`): interrupt the
// run whose `execute` request had this `id`.
export type FrameRequest = { type: "interrupt"; id: number };
// Host → frame, once, in answer to `frame-loaded`: the worker's script and where the runtime is.
export type FrameStart = { type: "start"; script: Blob; runtimeUrl: string };

// Frame → host (window.postMessage; the host checks `event.source === iframe.contentWindow`).
export type FrameReply =
  | { type: "frame-loaded" }
  | { type: "frame-ready"; port: MessagePort; isolated: boolean }
  | { type: "worker-crashed"; message: string };

/** Size caps the host enforces on what comes back, whatever the sandbox was told. */
export const LIMITS = {
  maxStreamChunk: 1 << 20,
  maxTextBytes: 64 << 20,
  maxFileBytes: 100 * 1024 * 1024,
  maxStateBytes: 1024 * 1024 * 1024,
  maxListEntries: 10_000,
} as const;
