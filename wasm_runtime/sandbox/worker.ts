// The sandbox worker: boots Pyodide and the kernel, then serves the host's requests in order.
import type { PyProxy } from "pyodide/ffi";
import type {
  Environment,
  WorkerBoot,
  ErrorInfo,
  HostMessage,
  WorkerMessage,
  WorkerReply,
  WorkerRequest,
} from "../protocol/types.js";
import { watchRefusals } from "./csp-audit.js";
import { runCell } from "./execute.js";
import { RunInterrupts } from "./interrupt.js";
import { AnswerLine } from "./answer-line.js";
import { HostCalls } from "./host-calls.js";
import { listFiles, readFile, readFiles, writeFile } from "./files.js";
import { describeFiles } from "./describe.js";
import { countFileChanges } from "./file-changes.js";
import { scanFiles } from "./file-scan.js";
import { shortcutPathLookups } from "./fs-paths.js";
import { onFatal } from "./fatal.js";
import { missingGuarantee } from "./guarantees.js";
import { rehearse } from "./rehearsal.js";
import { failsOnlyTheRequest, isStrayInterrupt, RequestFailed } from "./failures.js";
import { loaderLog } from "./loader-log.js";
import { guardMemory } from "./memory-budget.js";
import { MemoryFigures, memoryBytes } from "./memory.js";
import { loadState, saveState } from "./state.js";
import { initFilesystem, initKernel, initRuntime, preloadPackages, type Runtime } from "./runtime.js";
import { routeRuntimeFetches } from "./runtime-fetch.js";
import { bootStep, bootSteps } from "./boot-steps.js";

// Only the stray KeyboardInterrupt (failures.ts) is dropped; any other uncaught error surfaces.
self.addEventListener("error", (event) => isStrayInterrupt(event.error) && event.preventDefault());
self.addEventListener("unhandledrejection", (event) => isStrayInterrupt(event.reason) && event.preventDefault());

const describeError = (error: unknown): ErrorInfo => {
  const e = error instanceof Error ? error : new Error(String(error));
  return { name: e.name, message: e.message, traceback: e.stack ?? "" };
};

const QUIET_POLL_MS = 50;

async function start({ runtimeUrl, snapshot, pushed, interrupt, answers, port }: WorkerBoot): Promise<void> {
  const post = (reply: WorkerReply, transfer: Transferable[] = []) => port.postMessage(reply, transfer);
  const interrupts = interrupt ? new RunInterrupts(interrupt) : null;
  const hostCalls = new HostCalls(
    (call) => port.postMessage(call satisfies WorkerMessage),
    answers ? new AnswerLine(answers) : null,
    interrupts,
  );
  const started = performance.now();
  // Requests may come while Pyodide boots (a resume sends the session's files and variables as
  // soon as the worker exists, so that copying them here overlaps the boot): they wait, in order.
  let booted!: (handle: (request: WorkerRequest) => Promise<void>) => void;
  const handler = new Promise<(request: WorkerRequest) => Promise<void>>((resolve) => (booted = resolve));
  let queue = Promise.resolve();
  let waiting = 0; // requests queued behind the current one
  // Requests other than preloads under way, and when one last came or ended: a preload that was
  // asked to wait for quiet (`quietMs`) takes each step only once the session is that quiet.
  let underWay = 0;
  let lastRequestAt = 0;
  const settled = (): void => {
    underWay--;
    lastRequestAt = performance.now();
  };
  port.addEventListener("message", (event: MessageEvent<HostMessage>) => {
    const request = event.data;
    if (request.type === "runtime-file") return;
    // Answers to a run's awaited host calls arrive while that run is the request under way.
    if (request.type === "host-answer") return hostCalls.receive(request);
    waiting++;
    const counted = request.type !== "preload";
    if (counted) {
      underWay++;
      lastRequestAt = performance.now();
    }
    queue = queue.then(async () => {
      const handle = await handler;
      waiting--;
      return counted ? handle(request).finally(settled) : handle(request);
    });
  });
  const runtime = await initRuntime(runtimeUrl, routeRuntimeFetches(runtimeUrl, port, pushed), snapshot);
  watchRefusals(); // after the runtime's own fetch route: a run's refused calls are counted
  onFatal(runtime.pyodide, (error) => post({ type: "fatal", error }));
  const memoryBudget = guardMemory(runtime.pyodide);
  const memoryFigures = new MemoryFigures(runtime.pyodide);
  initFilesystem(runtime);
  shortcutPathLookups(runtime.pyodide); // every file call of Python's looks its path up
  const fileChanges = countFileChanges(runtime.pyodide);
  let kernel: PyProxy | null = null;
  // The cell under way, if any: a preload takes its next step only once it is over.
  let cell: Promise<unknown> = Promise.resolve();
  const noCell = async (): Promise<void> => {
    for (let current = cell; ; current = cell) {
      await current.catch(() => undefined);
      // A task later: the cell's reply is posted first, not after seconds of the next import.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (current === cell) return;
    }
  };
  /** Once no request is under way and none has come or ended for `ms`. */
  const quietFor = async (ms: number): Promise<void> => {
    for (;;) {
      await noCell();
      const left = lastRequestAt + ms - performance.now();
      if (underWay === 0 && left <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, Math.max(left, QUIET_POLL_MS)));
    }
  };

  // Until a session claims this worker (its `configure`), the host hears which packages it has
  // loaded and imported: a resume whose variables need only these may take it (sdk/pool.ts).
  let claimed = false;
  const tellPreloaded = (): void => {
    const packages = Object.keys(runtime.pyodide.loadedPackages);
    if (!claimed && packages.length) post({ type: "preloaded", packages });
  };

  const handle = async (request: WorkerRequest): Promise<void> => {
    const { id } = request;
    // Any other request may change what is in use: the next run measures afresh.
    if (request.type !== "execute") memoryFigures.forget();
    try {
      switch (request.type) {
        case "preload":
          // In the background: claiming and configuring this worker must not wait for pandas.
          // Its imports fill the heap between runs: each step makes the next run measure afresh.
          // A spare's idle preload (`quietMs`) never slows a session that runs cells back to back:
          // after a claim it goes on only in the session's pauses.
          void preloadPackages(
            runtime,
            request.packages,
            () => (request.quietMs ? quietFor(request.quietMs) : noCell()).then(() => memoryFigures.forget()),
            tellPreloaded,
          )
            .catch((e: unknown) => void loaderLog.push(`preload: ${e}`))
            .finally(() => memoryFigures.forget());
          return post({ type: "done", id });
        case "rehearse":
          await rehearse(runtime, request.exercise, () => waiting > 0);
          return post({ type: "done", id });
        case "configure":
          claimed = true;
          memoryBudget?.set(request.config.memoryBudgetBytes);
          kernel = await initKernel(runtime, request.config);
          // The kernel rescans its files only after a change, and walks them in JavaScript.
          if (fileChanges) kernel.watch_files(fileChanges, (root: string) => scanFiles(runtime.pyodide.FS, root));
          return post({ type: "done", id });
        case "execute": {
          if (!kernel) throw new RequestFailed("the sandbox is not configured");
          // A preload still under way pauses until the cell is over (a package it is loading
          // now is waited for by the cell's own import of it, through Pyodide's package lock).
          const running = runCell(
            runtime,
            kernel,
            request,
            { interrupts, memoryBudget, memoryFigures },
            hostCalls,
            post,
          ).then((result) => post({ type: "result", id, result }));
          cell = running;
          return await running;
        }
        case "write-file":
          writeFile(runtime, request.path, request.data);
          kernel?.forget_files(); // its next run must not count this file as its own
          return post({ type: "done", id });
        case "read-file": {
          const data = readFile(runtime, request.path);
          return post({ type: "file", id, data }, [data.buffer]);
        }
        case "read-files": {
          const files = readFiles(runtime, request.paths);
          return post(
            { type: "file-batch", id, files },
            files.map(({ data }) => data.buffer),
          );
        }
        case "list-files":
          return post({ type: "files", id, files: listFiles(runtime) });
        case "save-state": {
          if (!kernel) throw new RequestFailed("the sandbox is not configured");
          const state = await saveState(runtime, kernel);
          return post({ type: "state", id, state }, [state.data.buffer]);
        }
        case "load-state": {
          if (!kernel) throw new RequestFailed("the sandbox is not configured");
          const { restored, failed, steps } = await loadState(runtime, kernel, request.data, request.packages);
          return post({ type: "state-loaded", id, restored, failed, steps });
        }
        case "describe-files": {
          if (!kernel) throw new RequestFailed("the sandbox is not configured");
          return post({ type: "workspace", id, preview: await describeFiles(runtime, kernel) });
        }
        case "environment":
          if (!kernel) throw new RequestFailed("the sandbox is not configured");
          return post({ type: "environment", id, environment: environmentOf(kernel) });
      }
    } catch (error) {
      reportFailure(runtime, id, error, post);
    }
  };
  bootStep("booted");
  post({
    type: "booted",
    isolated: interrupt !== null,
    bootMs: performance.now() - started,
    snapshot: runtime.bootedFrom,
    memoryBudget: memoryBudget ? "during-run" : "after-run",
    memoryBytes: memoryBytes(runtime.pyodide),
    steps: bootSteps(),
  });
  tellPreloaded(); // a package or plot-ready boot's packages are in already
  booted(handle);
}

const LOG_LINES_SHOWN = 50;

function environmentOf(kernel: PyProxy): Environment {
  const proxy = kernel.environment() as PyProxy;
  const env = proxy.toJs({ dict_converter: Object.fromEntries, create_pyproxies: false }) as Environment;
  proxy.destroy();
  return { ...env, log: loaderLog.tail(LOG_LINES_SHOWN) };
}

/** The request's failure, or the runtime's death (failures.ts decides which). */
function reportFailure(runtime: Runtime, id: number, error: unknown, post: (r: WorkerReply) => void): void {
  const info = describeError(error);
  if (!failsOnlyTheRequest(runtime.pyodide, error)) return post({ type: "fatal", error: info });
  post({ type: "failed", id, error: info, limit: error instanceof RequestFailed ? error.limit : null });
}

self.onmessage = (event: MessageEvent<WorkerBoot>) => {
  if (event.data?.type !== "boot") return;
  self.onmessage = null;
  bootStep("worker-started");
  const missing = missingGuarantee();
  if (missing) {
    const error = {
      name: "IsolationUnavailable",
      message: `wasmbox refuses to run code here: ${missing}`,
      traceback: "",
    };
    event.data.port.postMessage({ type: "fatal", error } satisfies WorkerMessage);
    return;
  }
  start(event.data).catch((error: unknown) => {
    event.data.port.postMessage({ type: "fatal", error: describeError(error) } satisfies WorkerMessage);
  });
};
