// A run's own memory figure (audit.peakMemoryBytes). The WebAssembly memory only grows, so its
// size is the largest any run since boot needed, not this run's. dlmalloc, which serves every
// allocation in the worker, says how much is in use at a given moment (mallinfo), but not the
// peak between two moments, and nothing in the worker can look while a run's code runs.
// So: a run that grew the memory needed about all of it at its highest, and gets its new size;
// a run that fitted in the memory it found gets what was in use when it ended (a lower bound:
// memory it freed before it ended is not seen).
import type { PyodideInterface } from "pyodide";
import { emscriptenModule as moduleOf } from "./pyodide-private.js";

const MALLINFO_FIELDS = 10; // struct mallinfo: ten size_t (4 bytes each on wasm32)
const IN_USE_FIELD = 7; // uordblks: bytes in allocated chunks
const MAPPED_FIELD = 4; // hblkhd: bytes in chunks taken with mmap

/** Bytes of the worker's WebAssembly memory: what the tab pays for it. */
export function memoryBytes(pyodide: PyodideInterface): number {
  return moduleOf(pyodide).HEAP8.length;
}

/** Bytes the allocator has handed out and not taken back. */
export function bytesInUse(pyodide: PyodideInterface): number {
  const module = moduleOf(pyodide);
  const saved = module.stackSave(); // the struct goes on the C stack: no malloc is exported
  try {
    const info = module.stackAlloc(MALLINFO_FIELDS * 4);
    module._mallinfo(info);
    const fields = module.HEAPU32.subarray(info >>> 2, (info >>> 2) + MALLINFO_FIELDS);
    return fields[IN_USE_FIELD]! + fields[MAPPED_FIELD]!;
  } finally {
    module.stackRestore(saved);
  }
}

/** Call before a run; the returned function, called after it, gives the run's figure. */
export function watchMemory(pyodide: PyodideInterface): () => number {
  const before = memoryBytes(pyodide);
  return () => {
    const after = memoryBytes(pyodide);
    return after > before ? after : bytesInUse(pyodide);
  };
}
