// A run's own memory figure (audit.peakMemoryBytes). The WebAssembly memory only grows, so its
// size is the largest any run since boot needed, not this run's. dlmalloc, which serves every
// allocation in the worker, says how much is in use at a given moment (mallinfo), but not the
// peak between two moments, and nothing in the worker can look while a run's code runs.
// So: a run that grew the memory needed about all of it at its highest, and gets its new size;
// a run that fitted in the memory it found gets what was in use when it ended (a lower bound:
// memory it freed before it ended is not seen).
// mallinfo walks every heap chunk, as long as a short run itself: a short run that follows
// another within a second, with nothing else done in between and the allocator's footprint
// unchanged, gets the figure measured after the earlier one instead of a walk of its own.
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

/** A run at least this long pays for its own walk (a small share of its time). */
const WALK_WORTH_MS = 20;
/** A walk's figure stands for the short runs that follow it within this time. */
const REUSE_MS = 1_000;

/** The runs' memory figures in one worker, and the last walk they may reuse. */
export class MemoryFigures {
  private measuredAt = -Infinity;
  private footprint = -1;
  private inUse = 0;

  constructor(private readonly pyodide: PyodideInterface) {}

  /** Call before a run; the returned function, called after it, gives the run's figure. */
  watch(): () => number {
    const before = memoryBytes(this.pyodide);
    const started = performance.now();
    return () => {
      const after = memoryBytes(this.pyodide);
      if (after > before) {
        this.forget();
        return after;
      }
      const now = performance.now();
      const reusable =
        now - started < WALK_WORTH_MS &&
        now - this.measuredAt < REUSE_MS &&
        moduleOf(this.pyodide)._malloc_footprint() === this.footprint;
      if (!reusable) this.walk(now);
      return this.inUse;
    };
  }

  /** Something other than a run changed the heap (a file written, a state loaded, a preload). */
  forget(): void {
    this.measuredAt = -Infinity;
  }

  private walk(now: number): void {
    this.inUse = bytesInUse(this.pyodide);
    this.footprint = moduleOf(this.pyodide)._malloc_footprint();
    this.measuredAt = now;
  }
}
