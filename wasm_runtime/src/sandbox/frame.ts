// The opaque-origin sandbox frame: starts the worker and owns its interrupt buffer.
// A sandboxed document cannot start a Worker from an http(s) URL (it is cross-origin to it), so
// the worker starts from a blob: URL made here; it inherits this document's CSP.

const workerUrl = new URL("worker.js", location.href).href;
const bootstrap = `importScripts(${JSON.stringify(workerUrl)});`;
const blobUrl = URL.createObjectURL(new Blob([bootstrap], { type: "text/javascript" }));
const worker = new Worker(blobUrl, { name: "wasmbox-sandbox" });

// A SharedArrayBuffer cannot cross to the host page (another agent cluster), so it lives here and
// the host asks this frame, whose thread is free while Python runs, to write the interrupt.
const interrupt = crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
const channel = new MessageChannel();

worker.addEventListener("error", (event) => {
  parent.postMessage({ type: "worker-crashed", message: String(event.message ?? "worker error") }, "*");
});
worker.postMessage(
  {
    type: "boot",
    runtimeUrl: new URL("../runtime/", location.href).href,
    interrupt,
    port: channel.port2,
  },
  [channel.port2],
);

addEventListener("message", (event) => {
  if (event.source !== parent) return;
  const data: unknown = event.data;
  if (interrupt && typeof data === "object" && data !== null && (data as { type?: unknown }).type === "interrupt") {
    Atomics.store(interrupt, 0, 2); // 2 = SIGINT, what Pyodide's interrupt buffer expects
  }
});

// The opaque origin means "*" is the only target origin that can reach the parent.
parent.postMessage({ type: "frame-ready", isolated: crossOriginIsolated }, "*", [channel.port1]);
