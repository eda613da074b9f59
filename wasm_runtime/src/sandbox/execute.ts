// One run inside the worker: packages from imports, the kernel, the heap size out.
import type { PyProxy } from "pyodide/ffi";
import type { KernelResult, NetworkAttempt, StreamName, WorkerReply } from "../protocol.js";
import { hostError, hostResult } from "../sdk/result.js";
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
  attempts = [];
  if (interrupt) {
    Atomics.store(interrupt, 0, 0); // a late interrupt meant for the previous run
    // Finding the cell's imports runs Python too: an interrupt landing there was swallowed with
    // the loader's errors, and the cell then ran on to the hard kill (state lost). Detached, the
    // buffer keeps an early interrupt until the cell starts, which it then stops at once.
    pyodide.setInterruptBuffer(undefined as unknown as Int32Array);
  }
  try {
    await pyodide.loadPackagesFromImports(request.code, loaderSinks);
  } catch {
    // The import itself then fails inside the cell, with the kernel's message.
  } finally {
    if (interrupt) pyodide.setInterruptBuffer(interrupt);
  }
  const onStream = (name: StreamName, text: string) => post({ type: "stream", runId: request.runId, name, text });
  let proxy: PyProxy;
  try {
    proxy = (await kernel.run.callKwargs(request.code, { run_id: request.runId, on_stream: onStream })) as PyProxy;
  } catch (error) {
    // An interrupt already pending when the cell starts fires in the kernel's first lines, before
    // the cell: a run cancelled before it ran, with the state intact.
    if ((error as { type?: unknown }).type !== "KeyboardInterrupt") throw error;
    // No hash here (no crypto.subtle outside a secure context): the host fills it in.
    const cancelled = hostError("KeyboardInterrupt", "interrupted before the cell started");
    return hostResult("OUTCOME_CANCELLED", cancelled, { stdout: "", stderr: "", truncated: false }, "");
  }
  const result = proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false }) as KernelResult;
  proxy.destroy();
  await settle(); // CSP violation events are queued tasks: let them land before counting
  result.audit.peakMemoryBytes = heapBytes(pyodide);
  result.audit.networkAttempts = [...(result.audit.networkAttempts ?? []), ...attempts];
  return result;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
