// Worker side of the runtime boot check: Pyodide from /runtime/, packages loaded from imports.
import { loadPyodide } from "/runtime/pyodide.mjs";

let pyodide;
const chatter = [];

async function boot() {
  const started = performance.now();
  pyodide = await loadPyodide({
    indexURL: new URL("/runtime/", self.location.href).href,
    stdout: (line) => chatter.push(line),
    stderr: (line) => chatter.push(line),
  });
  return { ms: performance.now() - started, version: pyodide.version };
}

async function run(code) {
  await pyodide.loadPackagesFromImports(code, { messageCallback: (m) => chatter.push(m) });
  const result = await pyodide.runPythonAsync(code);
  return result?.toJs ? result.toJs() : result;
}

self.onmessage = async (event) => {
  const { id, kind, code } = event.data;
  try {
    const value = kind === "boot" ? await boot() : await run(code);
    self.postMessage({ id, ok: true, value });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error) });
  }
};
