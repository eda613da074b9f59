// The worker's memory figure (audit.peakMemoryBytes): when a run walks the heap, and when a short
// run may take the figure of the walk before it (sandbox/memory.ts). A fake Emscripten module
// stands in for Pyodide's: its heap size, footprint and bytes in use are set by each test.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PyodideInterface } from "pyodide";
import { MemoryFigures } from "../../wasm_runtime/sandbox/memory.ts";

const MB = 1024 * 1024;

function fakePyodide() {
  const heap = { size: 32 * MB, footprint: 20 * MB, inUse: 10 * MB, walks: 0 };
  const memory = new Uint32Array(64);
  const module = {
    get HEAP8() {
      return { length: heap.size };
    },
    HEAPU32: memory,
    stackSave: () => 0,
    stackAlloc: () => 0,
    stackRestore: () => undefined,
    _mallinfo: (at: number) => {
      heap.walks++;
      memory.fill(0, at >>> 2, (at >>> 2) + 10);
      memory[(at >>> 2) + 7] = heap.inUse; // uordblks
    },
    _malloc_footprint: () => heap.footprint,
  };
  return { heap, pyodide: { _module: module } as unknown as PyodideInterface };
}

test("a sandbox's first run walks the heap and reports the bytes in use", () => {
  const { heap, pyodide } = fakePyodide();
  const figures = new MemoryFigures(pyodide);
  assert.equal(figures.watch()(), 10 * MB);
  assert.equal(heap.walks, 1);
});

test("a short run right after a walk, with the footprint unchanged, takes that walk's figure", () => {
  const { heap, pyodide } = fakePyodide();
  const figures = new MemoryFigures(pyodide);
  figures.watch()();
  heap.inUse = 11 * MB;
  assert.equal(figures.watch()(), 10 * MB);
  assert.equal(heap.walks, 1);
});

test("a run that grew the allocator's footprint walks again", () => {
  const { heap, pyodide } = fakePyodide();
  const figures = new MemoryFigures(pyodide);
  figures.watch()();
  heap.footprint = 30 * MB;
  heap.inUse = 25 * MB;
  assert.equal(figures.watch()(), 25 * MB);
  assert.equal(heap.walks, 2);
});

test("a run that grew the memory reports its new size, and the next run walks", () => {
  const { heap, pyodide } = fakePyodide();
  const figures = new MemoryFigures(pyodide);
  figures.watch()();
  const grown = figures.watch();
  heap.size = 400 * MB;
  assert.equal(grown(), 400 * MB);
  heap.inUse = 12 * MB;
  assert.equal(figures.watch()(), 12 * MB);
  assert.equal(heap.walks, 2);
});

test("another request in between (forget) makes the next run walk", () => {
  const { heap, pyodide } = fakePyodide();
  const figures = new MemoryFigures(pyodide);
  figures.watch()();
  figures.forget();
  heap.inUse = 60 * MB;
  assert.equal(figures.watch()(), 60 * MB);
  assert.equal(heap.walks, 2);
});

test("a run of 20 ms or more pays for its own walk", async () => {
  const { heap, pyodide } = fakePyodide();
  const figures = new MemoryFigures(pyodide);
  figures.watch()();
  const long = figures.watch();
  await new Promise((resolve) => setTimeout(resolve, 25));
  heap.inUse = 70 * MB;
  assert.equal(long(), 70 * MB);
  assert.equal(heap.walks, 2);
});
