// The opaque-origin sandbox frame: starts the worker and owns its interrupt line.
// A sandboxed document cannot start a Worker from an http(s) URL (it is cross-origin to it), so
// the worker starts from a blob: URL made here; it inherits this document's CSP.

import type { FrameRequest } from "../protocol/types.js";
import { createInterruptBuffer, requestInterrupt } from "./interrupt.js";

const workerUrl = new URL("worker.js", location.href).href;
const bootstrap = `importScripts(${JSON.stringify(workerUrl)});`;
const blobUrl = URL.createObjectURL(new Blob([bootstrap], { type: "text/javascript" }));
const worker = new Worker(blobUrl, { name: "wasmbox-sandbox" });

// A SharedArrayBuffer cannot cross to the host page (another agent cluster), so it lives here and
// the host asks this frame, whose thread is free while Python runs, to write the interrupt.
// WebKitGTK reports cross-origin isolation yet has no SharedArrayBuffer: no interrupts there.
const interrupt = crossOriginIsolated && typeof SharedArrayBuffer === "function" ? createInterruptBuffer() : null;
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
  if (interrupt && isInterrupt(event.data)) requestInterrupt(interrupt, event.data.id);
});

// The opaque origin means "*" is the only target origin that can reach the parent.
parent.postMessage({ type: "frame-ready", isolated: interrupt !== null }, "*", [channel.port1]);

function isInterrupt(data: unknown): data is FrameRequest {
  const { type, id } = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
  return type === "interrupt" && Number.isSafeInteger(id) && (id as number) > 0;
}
