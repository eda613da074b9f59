// Pyodide's fatal errors, reported the moment they happen. When the WebAssembly/JS stack
// overflows (C-level recursion: deeply nested data in json, a raised recursion limit), V8 throws
// a RangeError through Pyodide's C frames; Pyodide calls that fatal, disables its API, and
// rethrows into an event-loop task where no run's promise ever settles. Without this hook the
// host waited for the run's deadline to learn what had happened in its first millisecond.
import type { PyodideInterface } from "pyodide";
import type { ErrorInfo } from "../protocol/types.js";
import { pyodideApi } from "./pyodide-private.js";

const STACK_OVERFLOW = /maximum call stack size exceeded|too much recursion|call stack exhausted/i;

/** The error a host sees for a fatal `cause`: a stack overflow gets a name and what to do. */
export function describeFatal(cause: unknown): ErrorInfo {
  const error = cause instanceof Error ? cause : new Error(String(cause));
  const traceback = error.stack ?? "";
  if (STACK_OVERFLOW.test(error.message)) {
    return {
      name: "RecursionError",
      message:
        "the code overflowed the browser's stack (recursion through C code, or data nested too deeply " +
        "for a C parser such as json); the Python runtime could not continue, so variables and imports " +
        "are gone. Rewrite the recursion as a loop with an explicit stack, or nest the data less",
      traceback,
    };
  }
  return { name: error.name || "Error", message: `the Python runtime failed: ${error.message}`, traceback };
}

/** Call `report` once, synchronously, when Pyodide declares itself unusable. */
export function onFatal(pyodide: PyodideInterface, report: (error: ErrorInfo) => void): void {
  const api = pyodideApi(pyodide);
  let reported = false;
  api.on_fatal = (error: unknown) => {
    if (reported) return;
    reported = true;
    report(describeFatal(error));
  };
}
