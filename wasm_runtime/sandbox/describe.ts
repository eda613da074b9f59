// The working directory's preview for the model (kernel/workspace.py). SQLite files need the
// runtime's sqlite3 package, which is loaded for them only (it is small; pandas is never loaded).
import type { PyProxy } from "pyodide/ffi";
import { listFiles } from "./files.js";
import { loaderSinks, type Runtime } from "./runtime.js";

const SQLITE = /\.(sqlite3?|db)$/i;

export async function describeFiles(runtime: Runtime, kernel: PyProxy): Promise<string> {
  if ("sqlite3" in runtime.manifest.packages && hasSqlite(runtime)) {
    await runtime.pyodide.loadPackage(["sqlite3"], loaderSinks);
  }
  return String(kernel.describe_files());
}

/** A directory over the listing's cap is previewed all the same (the kernel looks at 200 files). */
function hasSqlite(runtime: Runtime): boolean {
  try {
    return listFiles(runtime).some((f) => SQLITE.test(f.path));
  } catch {
    return false;
  }
}
