// A count of the changes made to the worker's in-memory file system, for the kernel: a run whose
// count did not move since the working directory was last scanned skips the scan (a `1+1` beside
// thousands of files then pays nothing for them). Counted at MEMFS's own operations, whatever
// way in a change takes: Python's open() and os functions, a C library's writes, a file object an
// earlier run opened, a task an earlier run left running, an mmap, the host's writeFile. A change
// anywhere counts: one outside the working directory costs a scan, never a missed file.
import type { PyodideInterface } from "pyodide";
import { memfsOperations } from "./pyodide-private.js";

/** MEMFS's operations that change a file or a directory (reads, lookups and seeks do not). */
export const CHANGING_OPERATIONS = {
  node: ["setattr", "mknod", "rename", "unlink", "rmdir", "symlink"],
  stream: ["write", "allocate", "msync"],
} as const;

/**
 * Start counting (once per worker); the returned function gives the count so far. Null when
 * MEMFS's operations are not where Pyodide 0.27 keeps them: the kernel then scans after every run.
 */
export function countFileChanges(pyodide: PyodideInterface): (() => number) | null {
  const tables = memfsOperations(pyodide.FS);
  if (!tables) return null;
  let changes = 0;
  for (const table of tables) {
    for (const kind of ["node", "stream"] as const) {
      const operations = table[kind];
      for (const name of CHANGING_OPERATIONS[kind]) {
        const original = operations?.[name];
        if (!operations || typeof original !== "function") continue;
        operations[name] = function (this: unknown, ...args: unknown[]) {
          changes++;
          return original.apply(this, args);
        };
      }
    }
  }
  return () => changes;
}
