// The opaque-origin sandbox frame: starts the worker and owns its interrupt line.
// Its document is the SDK's srcdoc (sdk/frame-doc.ts), whose policy allows no network at all: the
// host sends the worker's script as a Blob, and the worker starts from a blob: URL made here, so
// it inherits this document's CSP.

import {
  BOOT_FILES,
  MAX_PUSHED_FILES,
  RUNTIME_FILE_NAME,
  START_SNAPSHOTS,
  type FrameReply,
  type FrameRequest,
  type FrameStart,
  type HostAnswer,
  type RuntimeFilePush,
  type WorkerBoot,
} from "../protocol/types.js";
import { createAnswerLine, writeAnswer } from "./answer-line.js";
import { createInterruptBuffer, requestInterrupt } from "./interrupt.js";

// A SharedArrayBuffer cannot cross to the host page (another agent cluster), so it lives here and
// the host asks this frame, whose thread is free while Python runs, to write the interrupt.
// WebKitGTK reports cross-origin isolation yet has no SharedArrayBuffer: no interrupts there.
const interrupt = crossOriginIsolated && typeof SharedArrayBuffer === "function" ? createInterruptBuffer() : null;
// The answers to synchronous host calls go the same way (answer-line.ts): where there is no
// shared memory, nothing blocks and every host call awaits its answer over the port.
const answers = interrupt ? createAnswerLine() : null;
let worker: Worker | null = null;

function start({ script, runtimeUrl, snapshot, pushed }: FrameStart): void {
  worker = new Worker(URL.createObjectURL(script), { name: "wasmbox-sandbox" });
  const channel = new MessageChannel();
  worker.addEventListener("error", (event) => {
    parent.postMessage({ type: "worker-crashed", message: String(event.message ?? "worker error") }, "*");
  });
  const boot: WorkerBoot = { type: "boot", runtimeUrl, snapshot, pushed, interrupt, answers, port: channel.port2 };
  worker.postMessage(boot, [channel.port2]);
  // The opaque origin means "*" is the only target origin that can reach the parent.
  parent.postMessage({ type: "frame-ready", isolated: interrupt !== null }, "*", [channel.port1]);
}

/**
 * A file for the worker. This thread is idle while the worker compiles its script, so a boot file's
 * Blob (a file the page had stored) is read here, and the bytes move to the worker without a copy.
 * The package snapshot's files go on unread: the worker compiles each side module from its own
 * part of the bundle's Blob as that part is read (sandbox/package-snapshot.ts), where the bytes
 * would reach it only once the whole 50 MB had been read.
 */
function push(target: Worker, message: RuntimeFilePush): void {
  const { file, data } = message;
  const read =
    data instanceof Blob && BOOT_FILES.includes(file)
      ? data.arrayBuffer().then((buffer) => new Uint8Array(buffer))
      : Promise.resolve(data);
  read.then(
    (data) => target.postMessage({ ...message, data }, data instanceof Uint8Array ? [data.buffer] : []),
    (error: unknown) => target.postMessage({ type: "runtime-file-push", file, data: null, error: String(error) }),
  );
}

addEventListener("message", (event) => {
  if (event.source !== parent) return;
  if (!worker && isStart(event.data)) start(event.data);
  else if (worker && isPush(event.data)) push(worker, event.data);
  else if (interrupt && isInterrupt(event.data)) interruptRun(interrupt, event.data.id);
  else if (answers && isAnswer(event.data)) writeAnswer(answers, event.data);
});
parent.postMessage({ type: "frame-loaded" }, "*");

/** Interrupt run `id`; the host learns here, not from the worker, that its cell had begun. */
function interruptRun(buffer: SharedArrayBuffer, id: number): void {
  requestInterrupt(buffer, id, () => parent.postMessage({ type: "cell-started", id } satisfies FrameReply, "*"));
}

function fields(data: unknown): Record<string, unknown> {
  return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
}

function isStart(data: unknown): data is FrameStart {
  const { type, script, runtimeUrl, snapshot, pushed } = fields(data);
  return (
    type === "start" &&
    script instanceof Blob &&
    typeof runtimeUrl === "string" &&
    /^https?:\/\//.test(runtimeUrl) &&
    START_SNAPSHOTS.includes(snapshot as FrameStart["snapshot"]) &&
    Array.isArray(pushed) &&
    pushed.length <= MAX_PUSHED_FILES &&
    pushed.every((file) => typeof file === "string" && RUNTIME_FILE_NAME.test(file))
  );
}

function isPush(data: unknown): data is RuntimeFilePush {
  const { type, file, data: bytes, error } = fields(data);
  return (
    type === "runtime-file-push" &&
    typeof file === "string" &&
    RUNTIME_FILE_NAME.test(file) &&
    (bytes instanceof Blob || bytes instanceof Uint8Array || bytes === null) &&
    (typeof error === "string" || error === null)
  );
}

function isInterrupt(data: unknown): data is Extract<FrameRequest, { type: "interrupt" }> {
  const { type, id } = fields(data);
  return type === "interrupt" && Number.isSafeInteger(id) && (id as number) > 0;
}

function isAnswer(data: unknown): data is HostAnswer {
  const { type, callId, ok, value, error, stopped } = fields(data);
  return (
    type === "host-answer" &&
    Number.isSafeInteger(callId) &&
    typeof ok === "boolean" &&
    typeof value === "string" &&
    typeof error === "string" &&
    typeof stopped === "boolean"
  );
}
