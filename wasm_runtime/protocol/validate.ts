// Runtime parsers for messages from the sandbox. Each returns a freshly built object of the
// protocol type, or null; unknown fields are dropped, so nothing the sandbox adds gets through.
import {
  LIMITS,
  OUTCOMES,
  RUNTIME_FILE_NAME,
  type Audit,
  type Display,
  type Environment,
  type ErrorInfo,
  type FileInfo,
  type KernelResult,
  type MimeBundle,
  type NetworkAttempt,
  type SavedState,
  type SkippedVariable,
  type Outcome,
  type PolicyInfo,
  type WorkerMessage,
} from "./types.js";

type Rec = Record<string, unknown>;
// Python's None arrives as undefined after toJs(); both mean "absent".
const absent = (v: unknown): v is null | undefined =>
  v === null || v === undefined;
const isRec = (v: unknown): v is Rec =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown, max: number = LIMITS.maxTextBytes): string | null =>
  typeof v === "string" && v.length <= max ? v : null;
const num = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? v : null;
const int = (v: unknown): number | null =>
  Number.isSafeInteger(v) ? (v as number) : null;

/** Every element parsed, or null if any fails or there are too many. */
function list<T>(
  v: unknown,
  item: (x: unknown) => T | null,
  max = LIMITS.maxListEntries,
): T[] | null {
  if (!Array.isArray(v) || v.length > max) return null;
  const out: T[] = [];
  for (const x of v) {
    const parsed = item(x);
    if (parsed === null) return null;
    out.push(parsed);
  }
  return out;
}

const shortStr = (v: unknown) => str(v, 4096);

export function parseError(v: unknown): ErrorInfo | null {
  if (!isRec(v)) return null;
  const name = str(v.name, 256);
  const message = str(v.message, 1 << 20);
  const traceback = str(v.traceback, 1 << 20);
  return name !== null && message !== null && traceback !== null
    ? { name, message, traceback }
    : null;
}

function parseBundle(v: unknown): MimeBundle | null {
  if (!isRec(v)) return null;
  const out: MimeBundle = {};
  for (const [mime, data] of Object.entries(v)) {
    const text = str(data);
    if (text === null || mime.length > 256) return null;
    out[mime] = text;
  }
  return out;
}

function parseDisplay(v: unknown): Display | null {
  if (!isRec(v)) return null;
  const mime = str(v.mime, 256);
  const data = str(v.data);
  return mime !== null && data !== null ? { mime, data } : null;
}

export function parseFileInfo(v: unknown): FileInfo | null {
  if (!isRec(v)) return null;
  const path = shortStr(v.path);
  const size = int(v.size);
  const mime = str(v.mime, 256);
  return path !== null && size !== null && mime !== null
    ? { path, size, mime }
    : null;
}

function parseAttempt(v: unknown): NetworkAttempt | null {
  if (typeof v === "string")
    return { kind: "unknown", target: v.slice(0, 4096) };
  if (!isRec(v)) return null;
  return {
    kind: shortStr(v.kind) ?? "unknown",
    target: shortStr(v.target ?? v.url) ?? "",
  };
}

function parseAudit(v: unknown): Audit | null {
  if (!isRec(v)) return null;
  const codeSha256 = str(v.codeSha256, 64);
  const filesRead = list(v.filesRead, shortStr);
  const filesWritten = list(v.filesWritten, shortStr);
  const networkAttempts = list(v.networkAttempts, parseAttempt);
  const importedModules = list(v.importedModules, shortStr);
  const peak = absent(v.peakMemoryBytes) ? null : num(v.peakMemoryBytes);
  if (
    codeSha256 === null ||
    !filesRead ||
    !filesWritten ||
    !networkAttempts ||
    !importedModules
  )
    return null;
  return {
    codeSha256,
    filesRead,
    filesWritten,
    networkAttempts,
    importedModules,
    peakMemoryBytes: peak,
  };
}

function parsePolicy(v: unknown): PolicyInfo | null {
  if (!isRec(v)) return null;
  const rule = shortStr(v.rule);
  const message = str(v.message, 1 << 16);
  const line = absent(v.line) ? null : int(v.line);
  return rule !== null && message !== null && (line !== null || absent(v.line))
    ? { rule, line, message }
    : null;
}

const isOutcome = (v: unknown): v is Outcome => OUTCOMES.includes(v as Outcome);

export function parseKernelResult(v: unknown): KernelResult | null {
  if (!isRec(v) || !isOutcome(v.outcome)) return null;
  const stdout = str(v.stdout);
  const stderr = str(v.stderr);
  const value = absent(v.value) ? null : parseBundle(v.value);
  const displays = list(v.displays, parseDisplay);
  const files = list(v.files, parseFileInfo);
  const error = absent(v.error) ? null : parseError(v.error);
  const audit = parseAudit(v.audit);
  const policy = absent(v.policy) ? null : parsePolicy(v.policy);
  if (stdout === null || stderr === null || typeof v.truncated !== "boolean")
    return null;
  if (
    (!absent(v.value) && !value) ||
    (!absent(v.error) && !error) ||
    (!absent(v.policy) && !policy)
  )
    return null;
  if (!displays || !files || !audit) return null;
  return {
    outcome: v.outcome,
    stdout,
    stderr,
    truncated: v.truncated,
    value,
    displays,
    files,
    error,
    audit,
    policy,
  };
}

function parseEnvironment(v: unknown): Environment | null {
  if (!isRec(v) || !isRec(v.packages) || !isRec(v.limits)) return null;
  const python = shortStr(v.python);
  const notes = list(v.notes, shortStr);
  const packages: Record<string, string> = {};
  for (const [name, version] of Object.entries(v.packages)) {
    const text = shortStr(version);
    if (text === null) return null;
    packages[name] = text;
  }
  const limits = JSON.parse(JSON.stringify(v.limits)) as Record<
    string,
    unknown
  >;
  return python !== null && notes ? { python, packages, limits, notes } : null;
}

function parseSkipped(v: unknown): SkippedVariable | null {
  if (!isRec(v)) return null;
  const name = shortStr(v.name);
  const reason = shortStr(v.reason);
  return name !== null && reason !== null ? { name, reason } : null;
}

/** Pickled variables may be as large as a file the sandbox may hold, no larger. */
function parseSavedState(v: unknown): SavedState | null {
  if (
    !isRec(v) ||
    !(v.data instanceof Uint8Array) ||
    v.data.byteLength > LIMITS.maxStateBytes
  )
    return null;
  const skipped = list(v.skipped, parseSkipped);
  const packages = list(v.packages, shortStr);
  return skipped && packages ? { data: v.data, skipped, packages } : null;
}

/** A message from the worker, validated field by field; null for anything malformed or oversized. */
export function parseWorkerMessage(v: unknown): WorkerMessage | null {
  if (!isRec(v)) return null;
  const id = int(v.id);
  switch (v.type) {
    case "booted": {
      const bootMs = num(v.bootMs);
      return typeof v.isolated === "boolean" && bootMs !== null
        ? { type: "booted", isolated: v.isolated, bootMs }
        : null;
    }
    case "stream": {
      const text = str(v.text, LIMITS.maxStreamChunk);
      const name = v.name === "stdout" || v.name === "stderr" ? v.name : null;
      return id !== null && text !== null && name
        ? { type: "stream", id, name, text }
        : null;
    }
    case "cell-started":
      return id !== null ? { type: "cell-started", id } : null;
    case "result": {
      const result = parseKernelResult(v.result);
      return id !== null && result ? { type: "result", id, result } : null;
    }
    case "done":
      return id !== null ? { type: "done", id } : null;
    case "file":
      return id !== null &&
        v.data instanceof Uint8Array &&
        v.data.byteLength <= LIMITS.maxFileBytes
        ? { type: "file", id, data: v.data }
        : null;
    case "files": {
      const files = list(v.files, parseFileInfo);
      return id !== null && files ? { type: "files", id, files } : null;
    }
    case "environment": {
      const environment = parseEnvironment(v.environment);
      return id !== null && environment
        ? { type: "environment", id, environment }
        : null;
    }
    case "state": {
      const state = parseSavedState(v.state);
      return id !== null && state ? { type: "state", id, state } : null;
    }
    case "state-loaded": {
      const restored = list(v.restored, shortStr);
      const failed = list(v.failed, parseSkipped);
      return id !== null && restored && failed
        ? { type: "state-loaded", id, restored, failed }
        : null;
    }
    case "failed": {
      const error = parseError(v.error);
      return id !== null && error ? { type: "failed", id, error } : null;
    }
    case "fatal": {
      const error = parseError(v.error);
      return error ? { type: "fatal", error } : null;
    }
    case "fetch-runtime": {
      const fetchId = int(v.fetchId);
      const file =
        typeof v.file === "string" && RUNTIME_FILE_NAME.test(v.file)
          ? v.file
          : null;
      return fetchId !== null && file !== null
        ? { type: "fetch-runtime", fetchId, file }
        : null;
    }
    default:
      return null;
  }
}
