// The SDK's option types and their defaults, checked once where they enter.
import { LIMITS, type FileInfo, type KernelConfig, type Policy } from "../protocol/types.js";
import { pathProblem } from "../protocol/paths.js";
import type { JsonSchema } from "./expect.js";
import type { InputHandler, Tools } from "./tools.js";

export interface CreateOptions {
  /** Default deadline of each `execute`, in ms. */
  timeoutMs?: number;
  /** Runtime packages to load before the first run. */
  packages?: string[];
  policy?: Policy;
  allowInstall?: boolean;
  stdoutLimit?: number;
  stderrLimit?: number;
  /**
   * The worker's memory never grows past this many bytes: an allocation that would take it past
   * ends the run as OUTCOME_MEMORY_EXCEEDED with the variables kept. Where the worker cannot
   * refuse growth (`environment().limits.memoryBudgetHeld` is "after-run"), a run whose figure
   * ends over it restarts the worker instead (state lost).
   */
  memoryBudgetBytes?: number;
  /**
   * Keep the sandbox's files, run history and variables in this page's storage, so
   * `Sandbox.resume(id)` brings them back after a reload: `true` (30 days after the last use)
   * or `{ ttlDays }`.
   */
  persist?: boolean | { ttlDays?: number };
  /** A persisted sandbox's name in `Sandbox.list()`. */
  title?: string;
  /** Start-up progress, for a loading bar: runtime bytes downloaded, then booting, then ready. */
  onProgress?: (progress: StartProgress) => void;
  /**
   * Functions of this page that the sandbox's Python may call: `from wasmbox import tools`, then
   * `await tools.name(key=value)`. Arguments are checked against `parameters` before `handler`
   * runs; only JSON crosses (sdk/tools.ts). Not saved with a persisted sandbox: `Sandbox.resume(id,
   * { tools })` grants them again.
   */
  tools?: Tools;
}

export interface StartProgress {
  phase: "downloading" | "starting" | "ready";
  /** Runtime bytes this page has downloaded so far, and how many it expects (uncompressed). */
  loadedBytes: number;
  totalBytes: number;
}

export interface FileInput {
  path: string;
  data: string | Uint8Array;
}

export interface ExecuteOptions {
  timeoutMs?: number;
  files?: FileInput[];
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  /**
   * Called during the run, as soon as its code first imports `plotly` or `altair` in this sandbox's
   * worker (once per module per worker): a page can ready a chart's frame before the result comes.
   * Only those module names are ever passed.
   */
  onImport?: (module: string) => void;
  expect?: JsonSchema;
  /** Aborting cancels the run: interrupted (state kept) when isolated, else the sandbox restarts. */
  signal?: AbortSignal;
  /** Tools for this run only, beside the sandbox's (a name given here replaces the sandbox's). */
  tools?: Tools;
  /** Answers input(): the line it returns. Only where the engine can block (interrupt mode); else EOFError. */
  onInput?: InputHandler;
}

export type SandboxState = "starting" | "ready" | "busy" | "closed";

export interface SandboxInfo {
  id: string;
  /** "closed" for a persisted sandbox no page has open: `Sandbox.resume(id)` opens it. */
  state: SandboxState;
  persisted: boolean;
  title?: string;
  createdAt: number;
  lastUsedAt: number;
  /** Persisted only: when it will be removed unless used again, and the bytes it stores. */
  expiresAt?: number;
  bytes?: number;
  /** Persisted only: how many runs its saved history holds. */
  runs?: number;
}

export const DEFAULT_TTL_DAYS = 30;

/** Days a persisted sandbox is kept after its last use, or null when it is not persisted. */
export function ttlOf(persist: CreateOptions["persist"]): number | null {
  if (persist === undefined || persist === false) return null;
  if (persist === true) return DEFAULT_TTL_DAYS;
  if (typeof persist !== "object" || persist === null) throw new TypeError("persist must be true or { ttlDays }");
  return positive(persist.ttlDays, DEFAULT_TTL_DAYS, "persist.ttlDays");
}

export function titleOf(title: unknown): string | undefined {
  if (title === undefined) return undefined;
  if (typeof title !== "string" || title.length > 200)
    throw new TypeError("title must be a string of at most 200 characters");
  return title;
}

export type { FileInfo };

export interface Settings {
  timeoutMs: number;
  memoryBudgetBytes: number;
  kernel: KernelConfig;
}

const positive = (v: number | undefined, fallback: number, what: string): number => {
  if (v === undefined) return fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${what} must be a positive number, got ${v}`);
  return v;
};

export function settingsOf(options: CreateOptions): Settings {
  const memoryBudgetBytes = positive(options.memoryBudgetBytes, 2 * 1024 ** 3, "memoryBudgetBytes");
  return {
    timeoutMs: positive(options.timeoutMs, 30_000, "timeoutMs"),
    memoryBudgetBytes,
    kernel: {
      policy: options.policy ?? "default",
      packages: [...(options.packages ?? [])],
      allowInstall: options.allowInstall === true,
      stdoutLimit: positive(options.stdoutLimit, LIMITS.stdoutLimit, "stdoutLimit"),
      stderrLimit: positive(options.stderrLimit, LIMITS.stderrLimit, "stderrLimit"),
      memoryBudgetBytes,
    },
  };
}

/** Files as bytes, names checked and the request's total within the 100 MB cap; throws otherwise. */
export function filesOf(files: FileInput[]): { path: string; data: Uint8Array }[] {
  const out = files.map(({ path, data }) => {
    const problem = pathProblem(path);
    if (problem) throw new TypeError(`invalid file name ${JSON.stringify(path)}: ${problem}`);
    return { path, data: typeof data === "string" ? new TextEncoder().encode(data) : data };
  });
  const total = out.reduce((sum, f) => sum + f.data.byteLength, 0);
  if (total > LIMITS.maxFileBytes) {
    throw new RangeError(`files exceed the 100 MB per-request limit (${total} bytes)`);
  }
  return out;
}
