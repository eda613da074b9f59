// The sandbox frame's document and its worker's script, made by the host page rather than fetched
// by the frame. A sandboxed frame is an opaque origin: no service worker controls it and its HTTP
// cache is new on every visit, so anything it fetched itself would fail offline; and a static host
// sends no CSP header, so the frame's policy is a <meta> in the document written here. The
// iframe's `sandbox="allow-scripts"` makes the document opaque (the CSP `sandbox` directive is
// ignored in a <meta>); the worker it starts from a blob: URL inherits this policy.
import type { Activity } from "./activity.js";
import { runtimeFile } from "./runtime-files.js";

// Set at build time (scripts/build-js.mjs): sandbox/frame.js and its CSP hash.
declare const __WASMBOX_FRAME_SCRIPT__: string;
declare const __WASMBOX_FRAME_SHA256__: string;

/**
 * No network at all, not even the runtime folder: every file the worker reads comes from the host
 * page over its MessagePort. The only script is the frame's own (by hash); the worker is a blob.
 */
export const FRAME_POLICY = [
  "default-src 'none'",
  `script-src 'sha256-${__WASMBOX_FRAME_SHA256__}' 'wasm-unsafe-eval'`,
  "worker-src blob:",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** The frame's srcdoc: its policy, then its script inline. */
export function frameDocument(): string {
  if (/<\/script|<!--/i.test(__WASMBOX_FRAME_SCRIPT__)) throw new Error("the frame script cannot be inlined");
  return [
    "<!doctype html>",
    `<meta http-equiv="Content-Security-Policy" content="${FRAME_POLICY}">`,
    "<title>wasmbox sandbox</title>",
    `<script>${__WASMBOX_FRAME_SCRIPT__}</script>`,
  ].join("\n");
}

// Pyodide's loader ends with `try{Object.assign(exports,loadPyodide)}catch(_){}`. In a worker
// `exports` is undefined, and when DevTools or an automation client is attached, the thrown
// ReferenceError's stack trace makes V8 re-parse the whole loader script during the start. A
// script-level binding (not a property of the worker's global) lets that line do nothing.
const LOADER_EXPORTS = "let exports = {};\n";

const workerScripts = new Map<string, Promise<Blob>>();

/**
 * The worker's whole script as one blob: Pyodide's loader and module (so Pyodide never calls
 * importScripts) and wasmbox's worker. Read through the host page's caches, once per page.
 */
export function workerScript(sandboxUrl: string, activity: Activity): Promise<Blob> {
  let script = workerScripts.get(sandboxUrl);
  if (!script) {
    script = Promise.all([
      runtimeFile("pyodide.asm.js", activity),
      runtimeFile("pyodide.js", activity),
      sandboxFile(sandboxUrl, "worker.js"),
    ]).then(
      ([asm, loader, worker]) =>
        new Blob([LOADER_EXPORTS, asm as BlobPart, "\n;\n", loader as BlobPart, "\n;\n", worker], {
          type: "text/javascript",
        }),
    );
    script.catch(() => workerScripts.delete(sandboxUrl)); // a failure is not remembered
    workerScripts.set(sandboxUrl, script);
  }
  return script;
}

async function sandboxFile(sandboxUrl: string, name: string): Promise<ArrayBuffer> {
  const response = await fetch(new URL(name, sandboxUrl));
  if (!response.ok) throw new Error(`${name}: ${response.status}`);
  return response.arrayBuffer();
}
