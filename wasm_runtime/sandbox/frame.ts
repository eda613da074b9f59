// The opaque-origin sandbox frame: starts the worker and owns its interrupt line.
// Its document is the SDK's srcdoc (sdk/frame-doc.ts), whose policy allows no network at all: the
// host sends the worker's script as a Blob, and the worker starts from a blob: URL made here, so
// it inherits this document's CSP.

import type { FrameRequest, FrameStart } from "../protocol/types.js";
import { createInterruptBuffer, requestInterrupt } from "./interrupt.js";

// A SharedArrayBuffer cannot cross to the host page (another agent cluster), so it lives here and
// the host asks this frame, whose thread is free while Python runs, to write the interrupt.
// WebKitGTK reports cross-origin isolation yet has no SharedArrayBuffer: no interrupts there.
const interrupt = crossOriginIsolated && typeof SharedArrayBuffer === "function" ? createInterruptBuffer() : null;
let started = false;

function start({ script, runtimeUrl }: FrameStart): void {
  started = true;
  const worker = new Worker(URL.createObjectURL(script), { name: "wasmbox-sandbox" });
  const channel = new MessageChannel();
  worker.addEventListener("error", (event) => {
    parent.postMessage({ type: "worker-crashed", message: String(event.message ?? "worker error") }, "*");
  });
  worker.postMessage({ type: "boot", runtimeUrl, interrupt, port: channel.port2 }, [channel.port2]);
  // The opaque origin means "*" is the only target origin that can reach the parent.
  parent.postMessage({ type: "frame-ready", isolated: interrupt !== null }, "*", [channel.port1]);
}

addEventListener("message", (event) => {
  if (event.source !== parent) return;
  if (!started && isStart(event.data)) start(event.data);
  else if (interrupt && isInterrupt(event.data)) requestInterrupt(interrupt, event.data.id);
});
parent.postMessage({ type: "frame-loaded" }, "*");

function fields(data: unknown): Record<string, unknown> {
  return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
}

function isStart(data: unknown): data is FrameStart {
  const { type, script, runtimeUrl } = fields(data);
  return (
    type === "start" && script instanceof Blob && typeof runtimeUrl === "string" && /^https?:\/\//.test(runtimeUrl)
  );
}

function isInterrupt(data: unknown): data is FrameRequest {
  const { type, id } = fields(data);
  return type === "interrupt" && Number.isSafeInteger(id) && (id as number) > 0;
}
