// One sandbox engine as the host sees it: a hidden opaque-origin iframe, the worker inside it,
// and the MessagePort the frame hands over. Everything that arrives is parsed before use.
import type {
  BootedFrom,
  MemoryBudgetHeld,
  ErrorInfo,
  FrameRequest,
  FrameStart,
  HostAnswer,
  HostCall,
  RunHost,
  RuntimeFilePush,
  RuntimeFileReply,
  StartSnapshot,
  StreamName,
  WorkerReply,
  WorkerRequest,
} from "../protocol/types.js";
import { pushedFiles } from "../protocol/types.js";
import { parseWorkerMessage, type Refusal } from "../protocol/validate.js";
import type { Activity } from "./activity.js";
import { SandboxError } from "./errors.js";
import type { HostCallAnswer } from "./tools.js";
import { frameDocument, workerScript } from "./frame-doc.js";
import { mark, markBootSteps } from "./marks.js";
import {
  packageSnapshotEntry,
  plotSnapshotEntry,
  type PackageSnapshotEntry,
  prefetchBootFiles,
  prefetchPackageSnapshot,
  runtimeFile,
  RUNTIME_URL,
} from "./runtime-files.js";

const BOOT_TIMEOUT_MS = 120_000;

/** The manifest's entry for a "packages" or "plot" start's snapshot. */
const snapshotEntryFor = (snapshot: Exclude<StartSnapshot, "base">): Promise<PackageSnapshotEntry | null> =>
  snapshot === "plot" ? plotSnapshotEntry() : packageSnapshotEntry();

/**
 * The files a worker starting from `snapshot` is pushed (protocol/types.ts: pushedFiles): the
 * package or plot-ready snapshot's come from the manifest (none if it has none: that worker falls
 * back). `byParts`: those the worker reads by parts (the snapshot's bundle, whose side modules
 * compile as their parts are read), which go as stored.
 */
async function filesToPush(snapshot: StartSnapshot): Promise<{ files: string[]; byParts: string[] }> {
  if (snapshot === "base") return { files: pushedFiles(snapshot, []), byParts: [] };
  const entry = await snapshotEntryFor(snapshot);
  const files = pushedFiles(snapshot, entry ? [entry.file, entry.record, entry.bundle] : []);
  return { files, byParts: entry ? [entry.bundle] : [] };
}

/**
 * These runtime files, unasked, each as soon as the page has it, to the frame: it reads the Blobs
 * of stored files and hands the worker the bytes while the worker's script is still being compiled.
 */
function pushFiles(
  iframe: HTMLIFrameElement,
  { files, byParts }: { files: readonly string[]; byParts: readonly string[] },
  activity: Activity,
  sent: (file: string) => void,
): void {
  const send = (push: RuntimeFilePush) => {
    sent(push.file);
    if (!iframe.isConnected) return; // the engine is gone
    iframe.contentWindow?.postMessage(push, "*", push.data instanceof Uint8Array ? [push.data.buffer] : []);
  };
  for (const file of files) {
    void runtimeFile(file, activity, !byParts.includes(file)).then(
      (data) => send({ type: "runtime-file-push", file, data, error: null }),
      (error: unknown) => send({ type: "runtime-file-push", file, data: null, error: String(error) }),
    );
  }
}

/** Thrown into pending calls when the engine is killed or its runtime dies. */
/**
 * The page would not take the frame's document: a page whose Content-Security-Policy enforces
 * Trusted Types refuses a string for `srcdoc`. No frame means no opaque origin to run code in.
 */
function frameRefused(error: unknown): SandboxError {
  const why = error instanceof Error ? error.message : String(error);
  return new SandboxError(
    "start_failed",
    `the sandbox did not start: this page refused the sandbox frame's document (${why}); a page that enforces Trusted Types gets no sandbox, since code may only run in that opaque-origin frame`,
    { errorName: "IsolationUnavailable" },
  );
}

export class EngineDied extends SandboxError {
  constructor(readonly info: ErrorInfo) {
    super("runtime_died", info.message, { errorName: info.name, traceback: info.traceback });
  }
}

type Waiter = (reply: WorkerReply | SandboxError) => void;

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;
type StreamSink = (name: StreamName, text: string) => void;

/** What a run's events go to while it runs. */
export interface RunListeners {
  onStream: StreamSink;
  /** The frame found the run in its cell when asked to interrupt it (an interrupt then stops it). */
  onCellStart: () => void;
  /** Python asks the host (a tool, input()): the answer (sdk/tools.ts: RunCalls). */
  onHostCall?: (call: HostCall) => Promise<HostCallAnswer>;
  /** The run imported one of ANNOUNCED_IMPORTS, the first time in this worker. */
  onImport?: (module: string) => void;
}

/** One `execute` on an engine: its id (the request's), its reply, and its interrupt. */
export interface Run {
  readonly id: number;
  /** The `result` (or `failed`) reply; rejects with EngineDied, or a "protocol" SandboxError. */
  readonly reply: Promise<WorkerReply>;
  /** KeyboardInterrupt in this run's Python, if it is still running (only when isolated). */
  interrupt(): void;
}

export class Engine {
  private readonly pending = new Map<number, Waiter>();
  private readonly runs = new Map<number, RunListeners>();
  /** Host calls being answered: their run, and whether the worker is blocked on the answer line. */
  private readonly calls = new Map<number, { run: number; sync: boolean }>();
  /** The modules this worker said it imported: each is passed on once, however often it says so. */
  private readonly imported = new Set<string>();
  private nextId = 1;
  private death: EngineDied | null = null;
  /** Called once when the engine dies on its own (fatal error, crashed worker). */
  onDeath: ((error: EngineDied) => void) | null = null;
  /** The snapshot its worker booted from (set once booted). */
  bootedFrom: BootedFrom = "none";
  /** When its worker holds the memory budget (set once booted). */
  memoryBudget: MemoryBudgetHeld = "after-run";
  /** Its worker's memory once booted, in bytes (set once booted; 0 if it did not say). */
  bootMemoryBytes = 0;
  /**
   * The runtime packages its worker said it has loaded and imported, while no session had it
   * (protocol: `preloaded`): what a spare holds. Read only by the pool, for unclaimed spares.
   */
  preloaded: ReadonlySet<string> = new Set();

  private constructor(
    private readonly iframe: HTMLIFrameElement,
    private readonly port: MessagePort,
    readonly isolated: boolean,
    private readonly stopListening: () => void,
    /** The page's: runtime files this engine fetched are stored for a later visit once it is idle. */
    private readonly activity: Activity,
  ) {
    port.onmessage = (event) => this.receive(event.data);
  }

  /**
   * Start a frame and wait until its worker has booted Pyodide and the kernel package, from the
   * `snapshot` asked for when it can (protocol/types.ts: StartSnapshot). `reachable` gets the
   * engine as soon as requests can be sent: the worker takes them, in order, once booted.
   * `activity` is the page's (activity.ts): the files it fetches are stored once it is idle.
   */
  static start(
    sandboxUrl: string,
    activity: Activity,
    snapshot: StartSnapshot = "base",
    reachable?: (engine: Engine) => void,
  ): Promise<Engine> {
    let srcdoc: string;
    try {
      srcdoc = frameDocument();
    } catch (error) {
      return Promise.reject(error as Error);
    }
    mark("engine-start");
    // Read while the frame and its worker start (a package boot's base snapshot only if it falls back).
    prefetchBootFiles(activity, pushedFiles(snapshot, []));
    if (snapshot !== "base") prefetchPackageSnapshot(activity, snapshotEntryFor(snapshot));
    const script = workerScript(sandboxUrl, activity);
    const pushed = filesToPush(snapshot);
    const iframe = document.createElement("iframe");
    iframe.sandbox.add("allow-scripts"); // never allow-same-origin: the frame must stay opaque
    iframe.allow = "cross-origin-isolated";
    iframe.hidden = true;
    try {
      iframe.srcdoc = srcdoc;
    } catch (error) {
      return Promise.reject(frameRefused(error));
    }
    return new Promise<Engine>((resolve, reject) => {
      let engine: Engine | null = null;
      let started = false;
      // Where the start stands, for the timeout's message: a hang says which part never came.
      let stage = "the sandbox frame never loaded";
      const unsent = new Set<string>();
      const where = () => (unsent.size ? `${stage}; the page was still reading ${[...unsent].join(", ")}` : stage);
      // `errorName`: the worker's, when it refused to start (IsolationUnavailable).
      const fail = (message: string, errorName?: string) => {
        cleanup();
        iframe.remove();
        engine?.die({ name: "SandboxCrashed", message, traceback: "" });
        if (!started) reject(new SandboxError("start_failed", `the sandbox did not start: ${message}`, { errorName }));
      };
      const sendScript = () =>
        Promise.all([script, pushed]).then(
          ([blob, push]) => {
            mark("worker-script-sent");
            const { files } = push;
            const start: FrameStart = { type: "start", script: blob, runtimeUrl: RUNTIME_URL, snapshot, pushed: files };
            iframe.contentWindow?.postMessage(start, "*");
            stage = "the sandbox worker never reported ready";
            files.forEach((file) => unsent.add(file));
            pushFiles(iframe, push, activity, (file) => unsent.delete(file));
          },
          (error: unknown) => fail(`its files could not be read: ${String(error)}`),
        );
      const timer = setTimeout(
        () => fail(`boot timed out after ${BOOT_TIMEOUT_MS / 1000} s: ${where()}`),
        BOOT_TIMEOUT_MS,
      );
      const onMessage = (event: MessageEvent) => {
        if (event.source !== iframe.contentWindow || typeof event.data !== "object" || event.data === null) return;
        const { type } = event.data as { type?: unknown };
        const port = event.ports[0];
        if (type === "frame-loaded" && !engine) {
          mark("frame-loaded");
          stage = "the page never had the worker's script and start-up files";
          void sendScript();
        } else if (type === "frame-ready" && port && !engine) {
          mark("frame-ready");
          stage = "the sandbox worker was still booting Python";
          const isolated = (event.data as { isolated?: unknown }).isolated === true;
          engine = new Engine(iframe, port, isolated, cleanup, activity);
          reachable?.(engine);
          engine.booted.then(
            () => ((started = true), clearTimeout(timer), resolve(engine!)),
            (e: SandboxError) => fail(e.message, e.errorName),
          );
        } else if (type === "cell-started" && engine) {
          const { id } = event.data as { id?: unknown };
          if (Number.isSafeInteger(id)) engine.runs.get(id as number)?.onCellStart();
        } else if (type === "worker-crashed") {
          const { message } = event.data as { message?: unknown };
          fail(
            `the sandbox worker crashed${typeof message === "string" && message ? ` (${message.slice(0, 300)})` : ""}`,
          );
        }
      };
      const cleanup = () => (clearTimeout(timer), removeEventListener("message", onMessage));
      addEventListener("message", onMessage);
      document.body.append(iframe);
    });
  }

  private bootWaiter: Waiter | null = null;
  private readonly booted = new Promise<void>((resolve, reject) => {
    this.bootWaiter = (reply) => (reply instanceof SandboxError ? reject(reply) : resolve());
  });

  get alive(): boolean {
    return this.death === null;
  }

  private receive(data: unknown): void {
    if (this.death) return; // late: ignored
    const parsed = parseWorkerMessage(data);
    if (!parsed.ok) return this.refuse(parsed.refusal);
    const message = parsed.value;
    if (message.type === "fetch-runtime") {
      this.sendRuntimeFile(message.fetchId, message.file);
    } else if (message.type === "booted") {
      markBootSteps(message);
      mark("booted");
      this.bootedFrom = message.snapshot;
      this.memoryBudget = message.memoryBudget;
      this.bootMemoryBytes = message.memoryBytes;
      this.bootWaiter?.(message);
      this.bootWaiter = null;
    } else if (message.type === "preloaded") {
      this.preloaded = new Set(message.packages);
      mark("worker:preloaded");
    } else if (message.type === "stream") {
      this.runs.get(message.id)?.onStream(message.name, message.text);
    } else if (message.type === "imported") {
      if (this.imported.has(message.module)) return;
      this.imported.add(message.module);
      this.runs.get(message.id)?.onImport?.(message.module);
    } else if (message.type === "host-call") {
      this.hostCall(message);
    } else if (message.type === "fatal") {
      this.die(message.error);
    } else {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      this.endRun(message.id);
      waiter?.(message);
    }
  }

  /**
   * A call of a run in progress goes to its listener; any other is refused. The answer is sent
   * only while the call is still open: a stopped run's calls were answered "stopped" already,
   * and an answer that comes after its run ended is dropped.
   */
  private hostCall(call: HostCall): void {
    const onHostCall = this.runs.get(call.id)?.onHostCall;
    if (!onHostCall || this.calls.has(call.callId)) {
      const why = onHostCall ? "a call with this id is already open" : "no run of this sandbox is in progress";
      return this.answer(call.callId, call.sync, { ok: false, value: "", error: why });
    }
    this.calls.set(call.callId, { run: call.id, sync: call.sync });
    const settle = (answer: HostCallAnswer) => {
      if (this.calls.get(call.callId)?.run !== call.id) return;
      this.calls.delete(call.callId);
      this.answer(call.callId, call.sync, answer);
    };
    onHostCall(call).then(settle, (error: unknown) => settle({ ok: false, value: "", error: String(error) }));
  }

  private answer(callId: number, sync: boolean, { ok, value, error }: HostCallAnswer, stopped = false): void {
    if (this.death) return;
    const answer: HostAnswer = { type: "host-answer", callId, ok, value, error, stopped };
    // A blocked worker reads its answer from the frame's shared line; an awaiting one, its port.
    if (sync) this.iframe.contentWindow?.postMessage(answer, "*");
    else this.port.postMessage(answer);
  }

  /** Run `id` is being stopped: its open host calls end now, and their handlers' answers are dropped. */
  private stopCalls(id: number): void {
    for (const [callId, call] of this.calls) {
      if (call.run !== id) continue;
      this.calls.delete(callId);
      this.answer(callId, call.sync, { ok: false, value: "", error: "the run is being stopped" }, true);
    }
  }

  private endRun(id: number): void {
    this.runs.delete(id);
    for (const [callId, call] of this.calls) if (call.run === id) this.calls.delete(callId);
  }

  /**
   * A refused message ends the call it answered, with an error naming the field (a refused
   * `booted` ends the start: waiting would only end in the boot timeout); others are dropped.
   */
  private refuse({ field, problem, id, type }: Refusal): void {
    const what = `the sandbox's ${JSON.stringify(type ?? "untyped")} message was refused`;
    const error = new SandboxError("protocol", `${what}: ${field || "the message"}: ${problem}`, { field });
    if (type === "booted" && this.bootWaiter) {
      this.bootWaiter(error);
      this.bootWaiter = null;
      return;
    }
    const waiter = id === null ? undefined : this.pending.get(id);
    if (id === null || !waiter) return;
    this.pending.delete(id);
    this.endRun(id);
    waiter(error);
  }

  private sendRuntimeFile(fetchId: number, file: string): void {
    runtimeFile(file, this.activity, true).then(
      (data) =>
        this.alive &&
        this.port.postMessage(
          { type: "runtime-file", fetchId, data, error: null } satisfies RuntimeFileReply,
          data instanceof Uint8Array ? [data.buffer] : [],
        ),
      (error: unknown) =>
        this.alive &&
        this.port.postMessage({
          type: "runtime-file",
          fetchId,
          data: null,
          error: String(error),
        } satisfies RuntimeFileReply),
    );
  }

  /** Send one request; resolves with its reply, rejects with EngineDied or a "protocol" SandboxError. */
  call(request: Exclude<Request, { type: "execute" }>, transfer: Transferable[] = []): Promise<WorkerReply> {
    return this.send(this.nextId++, request, transfer);
  }

  /** Start running `code`; its events go to `listeners` until its reply arrives; `host`: what it may ask. */
  execute(code: string, listeners: RunListeners, host?: RunHost): Run {
    const id = this.nextId++;
    if (!this.death) this.runs.set(id, listeners);
    const reply = this.send(id, host ? { type: "execute", code, host } : { type: "execute", code });
    return { id, reply, interrupt: () => this.interrupt(id) };
  }

  private send(id: number, request: Request, transfer: Transferable[] = []): Promise<WorkerReply> {
    if (this.death) return Promise.reject(this.death);
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) => (reply instanceof SandboxError ? reject(reply) : resolve(reply)));
      this.port.postMessage({ ...request, id }, transfer);
    });
  }

  /** Ask the frame to interrupt run `id`: KeyboardInterrupt in its Python (only when isolated). */
  private interrupt(id: number): void {
    const request: FrameRequest = { type: "interrupt", id };
    this.iframe.contentWindow?.postMessage(request, "*");
    this.stopCalls(id);
  }

  /** Remove the frame, which ends its worker whatever it is doing. */
  kill(reason = "the sandbox was stopped"): void {
    if (this.death) return;
    this.death = new EngineDied({ name: "SandboxKilled", message: reason, traceback: "" });
    this.finish();
  }

  private die(error: ErrorInfo): void {
    if (this.death) return;
    this.death = new EngineDied(error);
    this.finish();
    this.onDeath?.(this.death);
  }

  private finish(): void {
    const death = this.death!;
    this.stopListening();
    this.port.close();
    this.iframe.remove();
    this.bootWaiter?.(death);
    for (const waiter of this.pending.values()) waiter(death);
    this.pending.clear();
    this.runs.clear();
    this.calls.clear();
  }
}
