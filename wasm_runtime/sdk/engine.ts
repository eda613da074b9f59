// One sandbox engine as the host sees it: a hidden opaque-origin iframe, the worker inside it,
// and the MessagePort the frame hands over. Everything that arrives is parsed before use.
import type { ErrorInfo, FrameRequest, RuntimeFileReply, StreamName, WorkerReply, WorkerRequest } from "../protocol/types.js";
import { parseWorkerReply } from "../protocol/validate.js";
import { prefetchBootFiles, runtimeFile } from "./runtime-files.js";

const BOOT_TIMEOUT_MS = 120_000;

/** Thrown into pending calls when the engine is killed or its runtime dies. */
export class EngineDied extends Error {
  override name = "EngineDied";
  constructor(readonly info: ErrorInfo) {
    super(info.message);
  }
}

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;
type StreamSink = (name: StreamName, text: string) => void;

export class Engine {
  private readonly pending = new Map<number, (reply: WorkerReply | EngineDied) => void>();
  private readonly streams = new Map<string, StreamSink>();
  private readonly cellStarts = new Map<string, () => void>();
  private nextId = 1;
  private lastExecuteId = 0;
  private death: EngineDied | null = null;
  /** Called once when the engine dies on its own (fatal error, crashed worker). */
  onDeath: ((error: EngineDied) => void) | null = null;

  private constructor(
    private readonly iframe: HTMLIFrameElement,
    private readonly port: MessagePort,
    readonly isolated: boolean,
    private readonly stopListening: () => void,
  ) {
    port.onmessage = (event) => this.receive(event.data);
  }

  /** Start a frame and wait until its worker has booted Pyodide and the kernel package. */
  static start(frameUrl: string): Promise<Engine> {
    prefetchBootFiles(); // read while the frame and its worker start
    const iframe = document.createElement("iframe");
    iframe.sandbox.add("allow-scripts"); // never allow-same-origin: the frame must stay opaque
    iframe.allow = "cross-origin-isolated";
    iframe.hidden = true;
    iframe.src = frameUrl;
    return new Promise<Engine>((resolve, reject) => {
      let engine: Engine | null = null;
      let started = false;
      const fail = (message: string) => {
        cleanup();
        iframe.remove();
        engine?.die({ name: "SandboxCrashed", message, traceback: "" });
        if (!started) reject(new Error(`the sandbox did not start: ${message}`));
      };
      const timer = setTimeout(() => fail("boot timed out"), BOOT_TIMEOUT_MS);
      const onMessage = (event: MessageEvent) => {
        if (event.source !== iframe.contentWindow || typeof event.data !== "object" || event.data === null) return;
        const { type } = event.data as { type?: unknown };
        const port = event.ports[0];
        if (type === "frame-ready" && port && !engine) {
          engine = new Engine(iframe, port, (event.data as { isolated?: unknown }).isolated === true, cleanup);
          engine.booted.then(
            () => ((started = true), clearTimeout(timer), resolve(engine!)),
            (e: Error) => fail(e.message),
          );
        } else if (type === "worker-crashed") {
          fail("the sandbox worker crashed");
        }
      };
      const cleanup = () => (clearTimeout(timer), removeEventListener("message", onMessage));
      addEventListener("message", onMessage);
      document.body.append(iframe);
    });
  }

  private bootWaiter: ((reply: WorkerReply | EngineDied) => void) | null = null;
  private readonly booted = new Promise<void>((resolve, reject) => {
    this.bootWaiter = (reply) => (reply instanceof EngineDied ? reject(reply) : resolve());
  });

  get alive(): boolean {
    return this.death === null;
  }

  private receive(data: unknown): void {
    const reply = parseWorkerReply(data);
    if (!reply || this.death) return; // malformed or late: ignored
    if (reply.type === "fetch-runtime") {
      this.sendRuntimeFile(reply.fetchId, reply.file);
    } else if (reply.type === "booted") {
      this.bootWaiter?.(reply);
      this.bootWaiter = null;
    } else if (reply.type === "stream") {
      this.streams.get(reply.runId)?.(reply.name, reply.text);
    } else if (reply.type === "cell-started") {
      this.cellStarts.get(reply.runId)?.();
    } else if (reply.type === "fatal") {
      this.die(reply.error);
    } else {
      const waiter = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      waiter?.(reply);
    }
  }

  private sendRuntimeFile(fetchId: number, file: string): void {
    runtimeFile(file).then(
      (data) => this.alive && this.port.postMessage({ type: "runtime-file", fetchId, data, error: null } satisfies RuntimeFileReply, [data.buffer]),
      (error: unknown) => this.alive && this.port.postMessage({ type: "runtime-file", fetchId, data: null, error: String(error) } satisfies RuntimeFileReply),
    );
  }

  /** Send one request; resolves with its reply, rejects with EngineDied. */
  call(request: Request, transfer: Transferable[] = []): Promise<WorkerReply> {
    if (this.death) return Promise.reject(this.death);
    const id = this.nextId++;
    if (request.type === "execute") this.lastExecuteId = id;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) => (reply instanceof EngineDied ? reject(reply) : resolve(reply)));
      this.port.postMessage({ ...request, id }, transfer);
    });
  }

  /** Route a run's streamed output to `sink` until the returned function is called. */
  stream(runId: string, sink: StreamSink): () => void {
    this.streams.set(runId, sink);
    return () => this.streams.delete(runId);
  }

  /** Call `listener` when run `runId` has its packages and starts its cell, until unsubscribed. */
  onCellStart(runId: string, listener: () => void): () => void {
    this.cellStarts.set(runId, listener);
    return () => this.cellStarts.delete(runId);
  }

  /** Ask the frame to interrupt the latest run: KeyboardInterrupt in Python (only when isolated). */
  interrupt(): void {
    const request: FrameRequest = { type: "interrupt", run: this.lastExecuteId };
    this.iframe.contentWindow?.postMessage(request, "*");
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
    this.streams.clear();
  }
}
