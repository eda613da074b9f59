// How the worker decides whether an error ends one request or the whole runtime. A request fails
// (and the worker serves the next) only for errors known to be about that request: its own
// refusals (RequestFailed), Python exceptions, and filesystem errors. Anything else means the
// runtime itself is broken: the worker reports it as fatal and the host replaces it.
import type { PyodideInterface } from "pyodide";
import type { LimitInfo } from "../protocol/types.js";

/** A request the worker refuses or cannot do, for a reason its message names. */
export class RequestFailed extends Error {
  override name = "RequestFailed";
  constructor(
    message: string,
    /** Set when a cap was the reason: which file (if one), its size and the cap. */
    readonly limit: LimitInfo | null = null,
  ) {
    super(message);
  }
}

export function failsOnlyTheRequest(pyodide: PyodideInterface | null, error: unknown): boolean {
  if (error instanceof RequestFailed) return true;
  if (!pyodide) return false;
  const { PythonError } = pyodide.ffi;
  const { ErrnoError } = pyodide.FS;
  return error instanceof PythonError || (typeof ErrnoError === "function" && error instanceof ErrnoError);
}

/**
 * Pyodide 0.27.7 rethrows an interrupted run's KeyboardInterrupt from its event loop after the
 * run already answered (the kernel reported it): that stray copy is the one uncaught error the
 * worker drops. Checked by name because it can arrive before the runtime is at hand.
 */
export function isStrayInterrupt(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { type?: unknown }).type === "KeyboardInterrupt" &&
    (error as Error).name === "PythonError"
  );
}
