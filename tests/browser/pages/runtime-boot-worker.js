// Worker side of the runtime boot check: Pyodide from /runtime/, packages loaded from imports.
import { loadPyodide } from "/runtime/pyodide.mjs";

let pyodide;
const chatter = [];

async function boot(snapshot) {
  const started = performance.now();
  const indexURL = new URL("/runtime/", self.location.href).href;
  pyodide = await loadPyodide({
    indexURL,
    ...(snapshot ? { _loadSnapshot: fetch(indexURL + snapshot).then((r) => r.arrayBuffer()) } : {}),
    stdout: (line) => chatter.push(line),
    stderr: (line) => chatter.push(line),
  });
  // A snapshot freezes `random`'s state: reseed it from the browser's entropy, or every sandbox
  // would draw the same numbers.
  if (snapshot) pyodide.runPython("import random; random.seed()");
  return { ms: performance.now() - started, version: pyodide.version };
}

async function run(code) {
  await pyodide.loadPackagesFromImports(code, { messageCallback: (m) => chatter.push(m) });
  const result = await pyodide.runPythonAsync(code);
  return result?.toJs ? result.toJs() : result;
}

self.onmessage = async (event) => {
  const { id, kind, code, snapshot } = event.data;
  try {
    const value = kind === "boot" ? await boot(snapshot) : await run(code);
    self.postMessage({ id, ok: true, value });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error) });
  }
};
