// Boots Pyodide once in Node, imports the kernel and the modules every sandbox needs
// (warm_boot.mjs), and writes the memory snapshot: a worker that loads it skips interpreter
// start-up and those imports.
// Usage: node make_snapshot.mjs PYODIDE_DIR KERNEL_WHEEL OUTPUT_FILE
import { writeFileSync } from "node:fs";
import { bootWarm } from "./warm_boot.mjs";

const [pyodideDir, kernelWheel, output] = process.argv.slice(2);
if (!pyodideDir || !kernelWheel || !output) {
  console.error("usage: node make_snapshot.mjs PYODIDE_DIR KERNEL_WHEEL OUTPUT_FILE");
  process.exit(2);
}
const { pyodide, missing } = await bootWarm(pyodideDir, kernelWheel);
if (missing.length) console.error(`snapshot warm-up: not in this Pyodide: ${missing.join(", ")}`);
writeFileSync(output, pyodide.makeMemorySnapshot());
