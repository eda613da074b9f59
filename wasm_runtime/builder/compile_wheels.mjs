// Adds bytecode to wheels with Pyodide's own CPython (wheel_bytecode.py): every wheel in
// WORK_DIR/in is written to WORK_DIR/out with a .pyc beside each module.
// Usage: node compile_wheels.mjs PYODIDE_DIR WORK_DIR
import { readdirSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, workDir] = process.argv.slice(2);
if (!pyodideDir || !workDir) {
  console.error("usage: node compile_wheels.mjs PYODIDE_DIR WORK_DIR");
  process.exit(2);
}
const indexURL = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
const pyodide = await loadPyodide({ indexURL, stdout: () => {} });
pyodide.FS.mkdirTree("/work");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: workDir }, "/work");

const namespace = pyodide.toPy({});
pyodide.runPython(readFileSync(new URL("wheel_bytecode.py", import.meta.url), "utf8"), { globals: namespace });
const addBytecode = namespace.get("add_bytecode");
for (const name of readdirSync(`${workDir}/in`).sort()) {
  try {
    console.log(`${name}: ${addBytecode(`/work/in/${name}`, `/work/out/${name}`)} modules`);
  } catch (error) {
    console.error(`${name}: ${error.message.trim().split("\n").pop()}`);
    process.exit(1);
  }
}
addBytecode.destroy();
namespace.destroy();
