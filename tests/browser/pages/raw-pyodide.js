// Raw Pyodide in the browser (`make bench-sandbox`, issue 27): the floor each engine's column is
// compared with. Each worker is plain: loadPyodide from /runtime/, no snapshot, no kernel, no
// frame. The page times from its side of the messages, as the SDK page does.
const WORKER = new URL("raw-pyodide-worker.js", import.meta.url);

/** A new worker; `booted()` resolves once Pyodide is up, `call(code, imports)` runs code. */
function start() {
  const worker = new Worker(WORKER, { type: "module" });
  const replies = [];
  let waiting = null;
  const receive = (message) => (waiting ? (waiting(message), (waiting = null)) : replies.push(message));
  worker.onmessage = (event) => receive(event.data);
  worker.onerror = (event) => receive({ error: event.message || "the worker failed to load" });
  const next = () => new Promise((resolve) => (replies.length ? resolve(replies.shift()) : (waiting = resolve)));
  const checked = async () => {
    const reply = await next();
    if (reply.error) throw new Error(reply.error);
    return reply;
  };
  const call = (code, imports = true) => (worker.postMessage({ code, imports }), checked());
  return { booted: checked, call, close: () => worker.terminate() };
}

/** Workers kept across calls (`rawPyodide.keep`), by number. */
const kept = new Map();

/** The next worker `spareCalls` takes: booted after the last one was taken, idle since. */
let spare = null;
const bootSpare = () => {
  const worker = start();
  spare = worker.booted().then(() => worker);
  spare.catch(() => undefined); // reported to the call that takes it
};

async function timed(action) {
  const t = performance.now();
  await action();
  return performance.now() - t;
}

window.rawPyodide = {
  /** W1: a new worker to its first result; the time since navigation start, as the SDK row. */
  async firstResult(code) {
    const worker = start();
    await worker.booted();
    await worker.call(code, false);
    const at = performance.now();
    worker.close();
    return at;
  },
  /** W2: one call, then `calls` timed, in one worker. */
  async warmCalls(code, calls) {
    const worker = start();
    await worker.booted();
    await worker.call(code, false);
    const times = [];
    for (let i = 0; i < calls; i++) times.push(await timed(() => worker.call(code, false)));
    worker.close();
    return times;
  },
  /** Boot the worker the next `spareCalls` takes, as a page boots its first warm spare. */
  prepareSpare() {
    if (!spare) bootSpare();
  },
  /** W2 as a sandbox's is taken: on a worker that booted beforehand and has idled since, as a
   * page's warm spare has; the next one boots once this one is done. */
  async spareCalls(code, calls) {
    if (!spare) bootSpare();
    const worker = await spare;
    spare = null;
    await worker.call(code, false);
    const times = [];
    for (let i = 0; i < calls; i++) times.push(await timed(() => worker.call(code, false)));
    worker.close();
    bootSpare();
    return times;
  },
  /** W3, W4 and the like: a booted worker's first run, its packages loaded from its imports;
   * its milliseconds and what it printed. */
  async firstRun(code) {
    const worker = start();
    await worker.booted();
    let stdout = "";
    const ms = await timed(async () => void ({ stdout } = await worker.call(code)));
    worker.close();
    return { ms, stdout };
  },
  /** A booted worker kept for `runKept` (the same code again in the same worker, as a sandbox's
   * runs are) until `release`; its number. */
  async keep() {
    const worker = start();
    await worker.booted();
    const id = kept.size ? Math.max(...kept.keys()) + 1 : 1;
    kept.set(id, worker);
    return id;
  },
  /** A run in kept worker `id`: its milliseconds and what it printed. */
  async runKept(id, code) {
    const worker = kept.get(id);
    if (!worker) throw new Error(`no kept worker ${id}`);
    let stdout = "";
    const ms = await timed(async () => void ({ stdout } = await worker.call(code)));
    return { ms, stdout };
  },
  release(id) {
    kept.get(id)?.close();
    kept.delete(id);
  },
};
window.rawReady = true;
