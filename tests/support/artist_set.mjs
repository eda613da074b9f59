// matplotlib's Artist classes as a sandbox gets them, with and without the build's table of their
// set() text: npm `pyodide` boots the build's runtime files in Node twice, loads matplotlib from
// the shipped wheel (the table is inside it), imports all of matplotlib each time and describes
// every class's set() and matplotlib's docstrings. Prints one JSON object (tests/runtime/test_artist_set_table.py reads it).
//   node tests/support/artist_set.mjs RUNTIME_DIR KERNEL_DIR BUILDER_DIR
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const [runtime, kernelDir, builderDir] = process.argv.slice(2);
// As in tests/bench/raw_pyodide.mjs: the runtime's pyodide.asm.js is CommonJS.
globalThis.require = require;
globalThis.__dirname = runtime.replace(/\/$/, "");
const { loadPyodide } = require("pyodide");

const MODULES = {
  "after_import.py": `${kernelDir}/wasmbox_kernel/after_import.py`,
  "artist_set.py": `${kernelDir}/wasmbox_kernel/_patches/artist_set.py`,
  "record_artist_set.py": `${builderDir}/record_artist_set.py`,
};

async function describe(withTable) {
  const pyodide = await loadPyodide({ indexURL: runtime, stdout: () => {}, stderr: () => {} });
  await pyodide.loadPackage(["matplotlib"], { messageCallback: () => {} });
  for (const [name, path] of Object.entries(MODULES)) pyodide.FS.writeFile(`/tmp/${name}`, readFileSync(path));
  return JSON.parse(
    pyodide.runPython(`
import json, sys
sys.path.insert(0, "/tmp")
import after_import, artist_set, record_artist_set
tables = []
if ${withTable ? "True" : "False"}:
    after_import.after_import({"matplotlib.artist": lambda m: tables.append(artist_set.use_shipped_table(m))})
failed = record_artist_set.import_all()
table = tables[0] if tables else None
json.dumps({
    "classes": record_artist_set.describe_classes(),
    "docstrings": record_artist_set.describe_docstrings(),
    "failed": failed,
    "served": table.served if table else 0,
    "servedKwdoc": table.served_kwdoc if table else 0,
    "hooked": len(tables),
})
`),
  );
}

const without = await describe(false);
const withTable = await describe(true);
// Exit once all of it is written: a pipe takes large output in pieces.
process.stdout.write(`${JSON.stringify({ without, with: withTable })}\n`, () => process.exit(0));
