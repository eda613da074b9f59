// A session's variables in and out of the kernel (wasmbox_kernel/state.py does the pickling).
import type { PyProxy } from "pyodide/ffi";
import type { SavedState, SkippedVariable } from "../protocol/types.js";
import { loaderSinks, type Runtime } from "./runtime.js";

const PICKLER = "cloudpickle";

interface PyStateOut {
  data: Uint8Array;
  skipped: SkippedVariable[];
  modules: string[];
}

const toPlain = <T>(proxy: PyProxy): T => {
  try {
    return proxy.toJs({
      dict_converter: Object.fromEntries,
      create_pyproxies: false,
    }) as T;
  } finally {
    proxy.destroy();
  }
};

/** The runtime packages that provide these top-level modules. */
function packagesOf(runtime: Runtime, modules: string[]): string[] {
  const loaded = new Set(modules);
  return Object.entries(runtime.manifest.packages)
    .filter(([name, p]) => name !== PICKLER && (p.imports ?? []).some((m) => loaded.has(m)))
    .map(([name]) => name);
}

export async function saveState(runtime: Runtime, kernel: PyProxy): Promise<SavedState> {
  await runtime.pyodide.loadPackage([PICKLER], loaderSinks);
  const out = toPlain<PyStateOut>(kernel.save_state() as PyProxy);
  return {
    data: out.data,
    skipped: out.skipped,
    packages: packagesOf(runtime, out.modules),
  };
}

export async function loadState(
  runtime: Runtime,
  kernel: PyProxy,
  data: Uint8Array,
  packages: string[],
): Promise<{ restored: string[]; failed: SkippedVariable[] }> {
  const known = packages.filter((name) => name in runtime.manifest.packages);
  await runtime.pyodide.loadPackage([PICKLER, ...known], loaderSinks);
  return toPlain(kernel.load_state(data) as PyProxy);
}
