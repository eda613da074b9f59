// One run inside the worker: packages from imports, the kernel, the heap size out.
import type { PyProxy } from "pyodide/ffi";
import type { KernelResult, NetworkAttempt, StreamName, WorkerReply } from "../protocol.js";
import { heapBytes, loaderSinks, type Runtime } from "./runtime.js";

// The browser, not Python, blocks the network; each refusal is a CSP violation event here.
let attempts: NetworkAttempt[] = [];
self.addEventListener("securitypolicyviolation", (event) => {
  attempts.push({ kind: `csp:${event.effectiveDirective}`, target: event.blockedURI });
});

export interface RunRequest {
  runId: string;
  code: string;
}

export async function runCell(
  runtime: Runtime,
  kernel: PyProxy,
  request: RunRequest,
  interrupt: Int32Array | null,
  post: (reply: WorkerReply) => void,
): Promise<KernelResult> {
  const { pyodide } = runtime;
  if (interrupt) Atomics.store(interrupt, 0, 0); // a late interrupt meant for the previous run
  attempts = [];
  try {
    await pyodide.loadPackagesFromImports(request.code, loaderSinks);
  } catch {
    // The import itself then fails inside the cell, with the kernel's message.
  }
  const onStream = (name: StreamName, text: string) => post({ type: "stream", runId: request.runId, name, text });
  const proxy = (await kernel.run.callKwargs(request.code, { run_id: request.runId, on_stream: onStream })) as PyProxy;
  const result = proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false }) as KernelResult;
  proxy.destroy();
  await settle(); // CSP violation events are queued tasks: let them land before counting
  result.audit.peakMemoryBytes = heapBytes(pyodide);
  result.audit.networkAttempts = [...(result.audit.networkAttempts ?? []), ...attempts];
  return result;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
