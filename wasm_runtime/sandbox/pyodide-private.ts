// Every Pyodide internal the worker reaches, in one place. They target Pyodide 0.27.7;
// tests/runtime/test_private_hooks.py boots that Pyodide in Node and checks each still exists.
//   _module   Emscripten's module: the heap views and the C stack, for the memory figures
//   _api      Pyodide's internal API: `on_fatal`, which its fatal_error handler calls
//   _loadSnapshot (a loadPyodide option, see runtime.ts): boot from the build's memory snapshot
import type { PyodideInterface } from "pyodide";

/** The parts of Emscripten's module the worker reads. */
export interface EmscriptenModule {
  HEAP8: Int8Array;
  HEAPU32: Uint32Array;
  stackSave(): number;
  stackAlloc(size: number): number;
  stackRestore(pointer: number): void;
  _mallinfo(result: number): void;
}

/** Pyodide's internal API object; `on_fatal` is called (once) when Pyodide gives up. */
export interface PyodideApi {
  on_fatal?: (error: unknown) => void;
}

export const emscriptenModule = (pyodide: PyodideInterface): EmscriptenModule =>
  (pyodide as unknown as { _module: EmscriptenModule })._module;

export const pyodideApi = (pyodide: PyodideInterface): PyodideApi => (pyodide as unknown as { _api: PyodideApi })._api;
