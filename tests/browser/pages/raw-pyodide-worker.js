// Raw Pyodide's worker (raw-pyodide.js): boot, say so, then run each code string posted and
// answer with its value's text, as tests/bench/raw_pyodide.mjs does in Node.
import { loadPyodide } from "/runtime/pyodide.mjs";

const out = [];
const pyodide = await loadPyodide({
  indexURL: new URL("/runtime/", self.location.href).href,
  stdout: (line) => void out.push(line),
  stderr: (line) => void out.push(line),
});

async function run({ code, imports }) {
  if (imports) await pyodide.loadPackagesFromImports(code, { messageCallback: () => {} });
  const value = pyodide.runPython(code);
  const text = value === undefined ? null : String(value);
  value?.destroy?.();
  return text;
}

self.onmessage = async (event) => {
  try {
    self.postMessage({ ok: await run(event.data), stdout: out.splice(0).join("\n") });
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
self.postMessage({ booted: true });
