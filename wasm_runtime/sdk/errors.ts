// The one error class the SDK throws for the sandbox's own failures. `execute` never throws for
// anything the code does (that is its ExecutionResult); these are the calls that could not be
// answered. Callers tell them apart by the string `type`, never by `instanceof` or the message:
//
//   "protocol"        the sandbox sent a message the host refused (malformed or over a size cap);
//                     `field` names the part that was refused, e.g. "files" or "data".
//   "limit_exceeded"  a file or a listing is over a cap; `path`, `size` and `limit` say which.
//   "request_failed"  the worker could not do the request (no such file, a name it refuses, a
//                     Python error); `errorName` and `traceback` are the worker's.
//   "runtime_died"    the worker's runtime died or was stopped while the call waited.
//   "closed"          the sandbox is closed.
//   "start_failed"    the sandbox did not start.
// A persisted sandbox's calls add (their classes, e.g. SessionLocked, are SandboxErrors too):
//   "session_not_found"  no saved sandbox with that id (never persisted, deleted or expired).
//   "session_locked"     another tab or window has the session open (one writer).
//   "storage_full"       the browser's storage quota refused a save; the previous save is kept.
//   "save_failed"        a save could not be written for another reason; the previous one is kept.
//   "not_persisted"      the call needs a persisted sandbox (e.g. `rename`).
//   "unsupported"        this browser lacks what the call needs (Web Locks, IndexedDB).
// Bad arguments are refused before anything is sent, with the standard TypeError / RangeError.

export type SandboxErrorType =
  | "protocol"
  | "limit_exceeded"
  | "request_failed"
  | "runtime_died"
  | "closed"
  | "start_failed"
  | "session_not_found"
  | "session_locked"
  | "storage_full"
  | "save_failed"
  | "not_persisted"
  | "unsupported";

export interface SandboxErrorDetails {
  /** The worker's error name (e.g. "FileNotFoundError"), for "request_failed" and "runtime_died". */
  errorName?: string;
  traceback?: string;
  /** The refused message's field, for "protocol". */
  field?: string;
  path?: string;
  size?: number;
  limit?: number;
}

export class SandboxError extends Error {
  override name = "SandboxError";
  readonly errorName: string | undefined;
  readonly traceback: string | undefined;
  readonly field: string | undefined;
  readonly path: string | undefined;
  readonly size: number | undefined;
  readonly limit: number | undefined;

  constructor(
    readonly type: SandboxErrorType,
    message: string,
    details: SandboxErrorDetails = {},
  ) {
    super(message);
    ({
      errorName: this.errorName,
      traceback: this.traceback,
      field: this.field,
      path: this.path,
      size: this.size,
      limit: this.limit,
    } = details);
  }
}
