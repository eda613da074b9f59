// Records what matplotlib computes for each of its Artist subclasses' set() (signature and
// docstring), with Pyodide in Node from the official wheels, and writes the table as JSON. See
// artist_set.py for why.
// Usage: node make_artist_set.mjs PYODIDE_DIR WHEEL_DIR RECORDER_PY OUTPUT_FILE
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelDir, recorder, output] = process.argv.slice(2);
if (!pyodideDir || !wheelDir || !recorder || !output) {
  console.error("usage: node make_artist_set.mjs PYODIDE_DIR WHEEL_DIR RECORDER_PY OUTPUT_FILE");
  process.exit(2);
}
const indexURL = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
// Packages from the verified wheels in WHEEL_DIR (the core's own lock names them), never a CDN.
const pyodide = await loadPyodide({ indexURL, packageCacheDir: wheelDir, stdout: () => {}, stderr: () => {} });
await pyodide.loadPackage("matplotlib", { messageCallback: () => {}, errorCallback: (m) => console.error(m) });
pyodide.FS.writeFile("/tmp/artist_set.py", readFileSync(recorder));
pyodide.FS.writeFile("/tmp/record_artist_set.py", readFileSync(new URL("record_artist_set.py", import.meta.url)));
const table = pyodide.runPython(`
import json, sys
sys.path.insert(0, "/tmp")
import artist_set, record_artist_set
import matplotlib.artist
recorder = artist_set.Recorder(matplotlib.artist)
record_artist_set.import_all()
json.dumps(recorder.table(), separators=(",", ":"))
`);
writeFileSync(output, table);
