// The interpreter state every snapshot starts from: Pyodide booted in Node for a snapshot, the
// installer's and the common modules imported (snapshot_warmup.py), the kernel imported from its
// wheel at the path the worker mounts it at (protocol/kernel-mount.mjs). The base snapshot (make_snapshot.mjs) and the
// package snapshot (make_package_snapshot.mjs) both start here, so a worker that boots from
// either continues from the same state (sandbox/runtime.ts: mountKernel, prepare_interpreter).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { kernelWheelPath } from "../protocol/kernel-mount.mjs";

/**
 * A Pyodide ready for makeMemorySnapshot, warmed up; `missing` names warm-up modules it lacks.
 * `runtimeDir`, when given, is a built runtime whose lock and wheels loadPackage then uses.
 */
export async function bootWarm(pyodideDir, kernelWheel, runtimeDir = null) {
  const indexURL = withSlash(pyodideDir);
  const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
  const packages = runtimeDir && {
    lockFileURL: `${withSlash(runtimeDir)}pyodide-lock.json`,
    packageCacheDir: withSlash(runtimeDir), // where Node's loadPackage reads wheels
  };
  const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true, stdout: () => {}, ...packages });

  // Run in a namespace of its own, so nothing but the imported modules stays behind.
  const namespace = pyodide.toPy({});
  pyodide.runPython(readFileSync(new URL("snapshot_warmup.py", import.meta.url), "utf8"), { globals: namespace });
  const missing = pyodide.runPython("warm_up()", { globals: namespace }).toJs();
  const wheelPath = kernelWheelPath(basename(kernelWheel));
  pyodide.FS.writeFile(wheelPath, readFileSync(kernelWheel));
  namespace.get("import_kernel")(wheelPath);
  namespace.destroy();
  return { pyodide, missing };
}

const withSlash = (dir) => (dir.endsWith("/") ? dir : `${dir}/`);
