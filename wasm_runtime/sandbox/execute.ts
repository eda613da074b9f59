// One run inside the worker: packages from imports, the kernel, the heap size out.
import type { PyCallable, PyProxy } from "pyodide/ffi";
import {
  ANNOUNCED_IMPORTS,
  type KernelResult,
  type RunHost,
  type StreamName,
  type WorkerReply,
} from "../protocol/types.js";
import { beginAudit, endAudit } from "./csp-audit.js";
import { errorInfo, nothingStreamed, resultWithoutKernel } from "../protocol/results.js";
import type { HostCalls } from "./host-calls.js";
import type { RunInterrupts } from "./interrupt.js";
import type { MemoryBudget } from "./memory-budget.js";
import type { MemoryFigures } from "./memory.js";
import { loaderSinks, type Runtime } from "./runtime.js";

/** Every import statement has this word; without it the loader would find nothing to load. */
const MAY_IMPORT = /\bimport\b/;

export interface RunRequest {
  /** The `execute` request's id: the run's id in every message about it. */
  id: number;
  code: string;
  /** The tools it may call and whether input() is answered (none when absent). */
  host?: RunHost | undefined;
}

/** What stops or bounds a run from outside its code (null where the worker has none), and
 * what measures its memory. */
export interface RunGuards {
  interrupts: RunInterrupts | null;
  memoryBudget: MemoryBudget | null;
  memoryFigures: MemoryFigures;
}

export async function runCell(
  runtime: Runtime,
  kernel: PyProxy,
  request: RunRequest,
  { interrupts, memoryBudget, memoryFigures }: RunGuards,
  hostCalls: HostCalls,
  post: (reply: WorkerReply) => void,
): Promise<KernelResult> {
  const { pyodide } = runtime;
  beginAudit(); // the browser, not Python, blocks the network: its refusals are listed
  const peakMemory = memoryFigures.watch();
  memoryBudget?.beginRun();
  // Finding imports parses the cell in Python, a cost not worth paying without one.
  // Why a package could not be loaded: the import that then fails in the cell says it.
  const loadFailures: string[] = [];
  if (MAY_IMPORT.test(request.code)) {
    const sinks = {
      ...loaderSinks,
      errorCallback: (message: string) => (loaderSinks.errorCallback(message), void loadFailures.push(message)),
    };
    try {
      await pyodide.loadPackagesFromImports(request.code, sinks);
      const undeclared = undeclaredPackages(pyodide, request.code);
      if (undeclared.length) await pyodide.loadPackage(undeclared, sinks);
    } catch (error) {
      loadFailures.push(String(error));
    }
  }
  // Finding imports and loading packages run Python too: an interrupt landing there was
  // swallowed with the loader's errors. One that arrives before this point is kept by the line
  // and stops the run here.
  if (interrupts && !interrupts.begin(request.id)) {
    interrupts.end();
    return interruptedBeforeStart();
  }
  const onStream = (name: StreamName, text: string) => post({ type: "stream", id: request.id, name, text });
  const onImport = (module: unknown) => announceImport(module, request.id, post);
  // Pyodide polls the buffer only while the cell's own code runs (the kernel says when): a
  // package loading in the background runs Python too, and must never take the interrupt.
  // Terminate-only: nobody can write this buffer, but Python then calls out to JS to read it,
  // and only there can WebKit's Worker.terminate() stop the thread (never inside WebAssembly).
  const buffer = interrupts ? interrupts.signal : terminationPoint;
  const onCell = (running: boolean) => pyodide.setInterruptBuffer((running ? buffer : undefined) as Int32Array);
  let text: string;
  const host = hostCalls.forRun(request.id, request.host);
  try {
    // Only what the run needs crosses: each value given becomes a proxy in Python.
    const options = {
      run_id: String(request.id),
      on_stream: onStream,
      on_import: onImport,
      on_cell: onCell,
      ...(loadFailures.length ? { load_failures: loadFailures } : {}),
      ...(host.bridge ? { host: host.bridge } : {}),
    };
    // The result as JSON text, or for a cell with top-level await a task (a thenable proxy,
    // destroyed once awaited) giving it.
    const started = startOf(kernel).callKwargs(request.code, options) as string | PyProxy;
    text = typeof started === "string" ? started : ((await started) as unknown as string);
  } catch (error) {
    // An interrupt in the kernel's own lines around the cell escapes the kernel.
    if ((error as { type?: unknown }).type !== "KeyboardInterrupt") throw error;
    return interruptedBeforeStart();
  } finally {
    host.end();
    onCell(false);
    interrupts?.end();
  }
  // Its wait for the browser's events of this run overlaps the work below.
  const audited = endAudit();
  const result = JSON.parse(text) as KernelResult;
  result.audit.peakMemoryBytes = peakMemory();
  memoryBudget?.endRun(result);
  const attempts = await audited;
  result.audit.networkAttempts = [...(result.audit.networkAttempts ?? []), ...attempts];
  return result;
}

/** The modules this worker has told the host it imported. */
const announced = new Set<string>();

/**
 * Tell the host that run `id` imported `module`, the first time it is one of ANNOUNCED_IMPORTS.
 * The kernel calls this from its import audit; the cell's own code can reach the function too, so
 * whatever it passes, at most one message per listed name ever leaves this worker.
 */
function announceImport(module: unknown, id: number, post: (reply: WorkerReply) => void): void {
  if (typeof module !== "string" || announced.has(module) || !ANNOUNCED_IMPORTS.includes(module)) return;
  announced.add(module);
  post({ type: "imported", id, module });
}

let findUndeclared: PyCallable | null = null;

/** The runtime packages the cell's imports need beyond their declared requirements. */
function undeclaredPackages(pyodide: Runtime["pyodide"], code: string): string[] {
  if (!findUndeclared) {
    const module = pyodide.pyimport("wasmbox_kernel.undeclared");
    findUndeclared = (module.undeclared_packages as PyCallable).copy() as PyCallable;
    module.destroy();
  }
  const packages = findUndeclared(code) as PyProxy;
  try {
    return packages.toJs() as string[];
  } finally {
    packages.destroy();
  }
}

/** Each kernel's `start_json`, taken from it once: a method read from a proxy is a new proxy. */
const starts = new WeakMap<PyProxy, PyCallable>();

/**
 * The kernel's run call. Its result comes as JSON text, parsed here: converting the dict itself
 * crosses between Python and JavaScript once per value, which a run that wrote thousands of
 * files pays for each, and a proxy of it costs a short run a share of its time.
 */
function startOf(kernel: PyProxy): PyCallable {
  let start = starts.get(kernel);
  if (!start) starts.set(kernel, (start = kernel.start_json as PyCallable));
  return start;
}

/** Before a kernel's proxy is destroyed: its run call too (it holds the kernel). */
export function releaseKernel(kernel: PyProxy): void {
  starts.get(kernel)?.destroy();
  starts.delete(kernel);
}

/** A run cancelled before its cell ran: the state is intact. */
function interruptedBeforeStart(): KernelResult {
  // No hash here (no crypto.subtle outside a secure context): the host fills it in.
  const cancelled = errorInfo("KeyboardInterrupt", "interrupted before the cell started");
  return resultWithoutKernel("OUTCOME_CANCELLED", cancelled, nothingStreamed(), "");
}

/** A Python loop's regular call into JS, where a terminating engine can stop it. */
const terminationPoint = new Int32Array(1);
