// Raw Pyodide beside wasmbox (`make bench-sandbox`, issue 27): npm `pyodide` booting the build's
// own runtime files (build/runtime) in a Node worker thread, doing the sandbox rows' work with the
// same code strings and the same package files. Each sample is a new worker; the main thread times
// from its side of the message, as the page does. Prints one JSON object: milliseconds per row.
//   node tests/bench/raw_pyodide.mjs RUNTIME_DIR RUNS WORKLOADS_JSON
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

if (isMainThread) await measure();
else await serve();

/** The worker: boot, say so, then run each code string posted and answer with its repr. */
async function serve() {
  const require = createRequire(import.meta.url);
  // The runtime's pyodide.asm.js is CommonJS, but this repository's package.json makes Node
  // import every .js under it as a module: it finds require() and __dirname on the global object.
  globalThis.require = require;
  globalThis.__dirname = workerData.runtime.replace(/\/$/, "");
  const { loadPyodide } = require("pyodide");
  const out = [];
  const pyodide = await loadPyodide({
    indexURL: workerData.runtime,
    stdout: (line) => void out.push(line),
    stderr: (line) => void out.push(line),
  });
  const run = async ({ code, imports }) => {
    // Packages the code imports come from the runtime's files, as the sandbox loads them.
    if (imports) await pyodide.loadPackagesFromImports(code, { messageCallback: () => {} });
    const value = pyodide.runPython(code);
    const text = value === undefined ? null : String(value);
    value?.destroy?.();
    return text;
  };
  parentPort.on("message", async (request) => {
    try {
      parentPort.postMessage({ ok: await run(request), stdout: out.splice(0).join("\n") });
    } catch (error) {
      parentPort.postMessage({ error: String(error) });
    }
  });
  parentPort.postMessage({ booted: true });
}

function start(runtime) {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { runtime } });
  const replies = [];
  let waiting = null;
  const receive = (message) => (waiting ? (waiting(message), (waiting = null)) : replies.push(message));
  worker.on("message", receive);
  worker.on("error", (error) => receive({ error: String(error) }));
  worker.on("exit", (code) => receive({ error: `the worker exited (${code})` }));
  const next = () => new Promise((resolve) => (replies.length ? resolve(replies.shift()) : (waiting = resolve)));
  const call = async (code, imports = true) => {
    worker.postMessage({ code, imports });
    const reply = await next();
    if (reply.error) throw new Error(reply.error);
    return reply;
  };
  return { booted: next, call, close: () => worker.terminate() };
}

async function booted(worker) {
  const reply = await worker.booted();
  if (reply.error) throw new Error(reply.error);
}

async function timed(action) {
  const t = performance.now();
  await action();
  return performance.now() - t;
}

async function measure() {
  const [runtime, runsText, workloadsText] = process.argv.slice(2);
  const runs = Number(runsText);
  const { W1, W2, W3, W4 } = JSON.parse(workloadsText);
  const rows = { W1: [], W2: [], W3: [], W4: [] };
  for (let run = 0; run < runs; run++) {
    // W1, cold start to the first result; then W2 in that worker: one call, then five timed.
    const t0 = performance.now();
    const first = start(runtime);
    await booted(first);
    await first.call(W1, false);
    rows.W1.push(performance.now() - t0);
    await first.call(W2, false);
    for (let i = 0; i < 5; i++) rows.W2.push(await timed(() => first.call(W2, false)));
    await first.close();
    // W3 and W4 each as a booted interpreter's first run: their packages not loaded yet.
    for (const [row, code] of [
      ["W3", W3],
      ["W4", W4],
    ]) {
      const fresh = start(runtime);
      await booted(fresh);
      rows[row].push(await timed(() => fresh.call(code)));
      await fresh.close();
    }
  }
  process.stdout.write(JSON.stringify(rows) + "\n");
}
