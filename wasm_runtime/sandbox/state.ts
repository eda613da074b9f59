// A session's variables in and out of the kernel (wasmbox_kernel/state.py does the pickling).
import type { PyProxy } from "pyodide/ffi";
import type { SavedState, SkippedVariable } from "../protocol/types.js";
import { KERNEL_PACKAGE, loaderSinks, type Runtime } from "./runtime.js";

const PICKLER = "cloudpickle";
const restorable = (name: string): boolean => name !== PICKLER && name !== KERNEL_PACKAGE;

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
    .filter(([name, p]) => restorable(name) && (p.imports ?? []).some((m) => loaded.has(m)))
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

export interface StateStep {
  name: string;
  at: number;
}

const now = (): number => performance.timeOrigin + performance.now();

export async function loadState(
  runtime: Runtime,
  kernel: PyProxy,
  data: Uint8Array,
  packages: string[],
): Promise<{ restored: string[]; failed: SkippedVariable[]; steps: StateStep[] }> {
  const known = packages.filter((name) => restorable(name) && name in runtime.manifest.packages);
  await runtime.pyodide.loadPackage([PICKLER, ...known], loaderSinks);
  const steps = [{ name: "packages", at: now() }];
  // Imported before unpickling, as when saved: the unpickling's own time is then its own.
  for (const name of known)
    for (const module of runtime.manifest.packages[name]?.imports ?? []) {
      try {
        runtime.pyodide.pyimport(module).destroy();
      } catch {
        // the unpickling names the variables this leaves out
      }
    }
  steps.push({ name: "imported", at: now() });
  const out = toPlain<{ restored: string[]; failed: SkippedVariable[] }>(kernel.load_state(data) as PyProxy);
  steps.push({ name: "unpickled", at: now() });
  return { ...out, steps };
}
