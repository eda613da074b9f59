// Page side of the runtime boot check: one worker, one pending call at a time.
const worker = new Worker(new URL("runtime-boot-worker.js", import.meta.url), { type: "module" });
const waiting = new Map();
let next = 0;

worker.onmessage = (event) => {
  const { id, ok, value, error } = event.data;
  const call = waiting.get(id);
  waiting.delete(id);
  if (ok) call.resolve(value);
  else call.reject(new Error(error));
};

function call(message) {
  const id = ++next;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, ...message });
  });
}

// Time from creating the worker to Pyodide ready, as the page sees it (read by the benchmark).
const bootStarted = performance.now();
const snapshot = new URLSearchParams(location.search).get("snapshot");
window.ready = call({ kind: "boot", snapshot }).then((info) => {
  window.bootMs = performance.now() - bootStarted;
  return info;
});
window.runPython = (code) => call({ kind: "run", code });
