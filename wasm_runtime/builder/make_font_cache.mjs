// Builds matplotlib's font cache with Pyodide in Node, from the official wheels, and prints where
// it wrote it. See font_cache.py for why.
// Usage: node make_font_cache.mjs PYODIDE_DIR WHEEL_DIR OUTPUT_FILE
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheelDir, output] = process.argv.slice(2);
if (!pyodideDir || !wheelDir || !output) {
  console.error("usage: node make_font_cache.mjs PYODIDE_DIR WHEEL_DIR OUTPUT_FILE");
  process.exit(2);
}
const indexURL = pyodideDir.endsWith("/") ? pyodideDir : `${pyodideDir}/`;
const { loadPyodide } = await import(pathToFileURL(`${indexURL}pyodide.mjs`).href);
// Packages from the verified wheels in WHEEL_DIR (the core's own lock names them), never a CDN.
const pyodide = await loadPyodide({ indexURL, packageCacheDir: wheelDir, stdout: () => {}, stderr: () => {} });
await pyodide.loadPackage("matplotlib", { messageCallback: () => {}, errorCallback: (m) => console.error(m) });
const path = pyodide.runPython(`
import os, matplotlib.font_manager as fm
fm._load_fontmanager(try_read_cache=False)  # rebuilds and writes it beside font_manager.py
os.path.join(os.path.dirname(fm.__file__), "fontlist.json")
`);
writeFileSync(output, pyodide.FS.readFile(path));
