// Boots Pyodide once in Node, imports the kernel and the modules every sandbox needs
// (snapshot_warmup.py), and writes the memory snapshot: a worker that loads it skips interpreter
// start-up and those imports.
// Usage: node make_snapshot.mjs PYODIDE_DIR KERNEL_WHEEL OUTPUT_FILE
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, kernelWheel, output] = process.argv.slice(2);
if (!pyodideDir || !kernelWheel || !output) {
  console.error("usage: node make_snapshot.mjs PYODIDE_DIR KERNEL_WHEEL OUTPUT_FILE");
  process.exit(2);
}
const indexURL = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL, _makeSnapshot: true, stdout: () => {} });

// Run in a namespace of its own, so nothing but the imported modules stays behind.
const namespace = pyodide.toPy({});
pyodide.runPython(readFileSync(new URL("snapshot_warmup.py", import.meta.url), "utf8"), { globals: namespace });
const missing = pyodide.runPython("warm_up()", { globals: namespace }).toJs();
// The path the worker mounts the wheel at (mountKernel in sandbox/runtime.ts).
const wheelPath = `/lib/${basename(kernelWheel)}`;
pyodide.FS.writeFile(wheelPath, readFileSync(kernelWheel));
namespace.get("import_kernel")(wheelPath);
namespace.destroy();
if (missing.length) console.error(`snapshot warm-up: not in this Pyodide: ${missing.join(", ")}`);
writeFileSync(output, pyodide.makeMemorySnapshot());
