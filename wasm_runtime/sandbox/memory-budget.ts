// The sandbox's memoryBudgetBytes, held while code runs. The worker's WebAssembly memory grows
// only when Emscripten's allocator runs out (sbrk → _emscripten_resize_heap → growMemory →
// wasmMemory.grow, a JS call on this thread). Refusing that growth past the budget makes the
// malloc fail, so Python raises MemoryError where the allocation was: the run ends, its state is
// kept, and the memory is never taken. Memory cannot shrink: what earlier runs grew stays.
import type { PyodideInterface } from "pyodide";
import type { KernelResult } from "../protocol/types.js";
import { emscriptenModule, growsThroughMemoryObject } from "./pyodide-private.js";

const PAGE_BYTES = 65_536;

export class MemoryBudget {
  private budget = Infinity;
  /** The largest size the memory was refused since the run began (0: none). */
  private refused = 0;

  /** From the sandbox's `configure`: growth past `bytes` is refused from now on. */
  set(bytes: number): void {
    this.budget = bytes;
  }

  beginRun(): void {
    this.refused = 0;
  }

  /** Whether the memory may grow to `bytes`; a refusal is remembered for the run's result. */
  allows(bytes: number): boolean {
    if (bytes <= this.budget) return true;
    this.refused = Math.max(this.refused, bytes);
    return false;
  }

  /**
   * A run that was refused memory ends as OUTCOME_MEMORY_EXCEEDED whatever it did next (code
   * that caught the MemoryError still ran into the budget); its error names the budget.
   */
  endRun(result: KernelResult): void {
    if (this.refused === 0) return;
    const held = `the sandbox's memoryBudgetBytes of ${this.budget} refused to grow its memory to ${this.refused} bytes; variables and imports are kept`;
    const own = result.outcome === "OUTCOME_MEMORY_EXCEEDED" ? result.error : null;
    result.outcome = "OUTCOME_MEMORY_EXCEEDED";
    result.error = {
      name: own?.name ?? "MemoryError",
      message: own?.message ? `${own.message} (${held})` : `out of memory: ${held}`,
      traceback: own?.traceback ?? result.error?.traceback ?? "",
    };
  }
}

/**
 * Hold a budget on this worker's Pyodide memory; null where this Pyodide does not grow its memory
 * through the JS call (the host then checks the run's figure after it ends).
 * Once per worker: the guard is on WebAssembly.Memory's prototype, since Emscripten keeps its
 * memory object private; it only ever refuses Pyodide's own memory (the one its heap views are on).
 */
export function guardMemory(pyodide: PyodideInterface): MemoryBudget | null {
  const module = emscriptenModule(pyodide);
  if (!growsThroughMemoryObject(module)) return null;
  const budget = new MemoryBudget();
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function guardedGrow(this: WebAssembly.Memory, pages: number): number {
    const ours = this.buffer === module.HEAP8.buffer;
    // growMemory catches this and tries a smaller size, then malloc returns NULL.
    if (ours && !budget.allows(this.buffer.byteLength + pages * PAGE_BYTES))
      throw new RangeError("over the sandbox's memoryBudgetBytes");
    return grow.call(this, pages);
  };
  return budget;
}
