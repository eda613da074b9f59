// The public `Sandbox`: lifecycle, a queue per sandbox, files, and results as DESIGN.md defines.
import { LIMITS, type Environment, type ExecutionResult, type FileInfo, type KernelResult, type WorkerReply } from "../protocol/types.js";
import type { Engine } from "./engine.js";
import { validateValue } from "./expect.js";
import { FileMirror } from "./mirror.js";
import { modeOf, type ModeReport, type SandboxMode } from "./mode.js";
import {
  filesOf,
  settingsOf,
  type CreateOptions,
  type ExecuteOptions,
  type SandboxInfo,
  type SandboxState,
  type Settings,
  type StartProgress,
} from "./options.js";
import { claimEngine, dropSpare, warmSpare, setBusyCheck } from "./pool.js";
import { cancelledBeforeStart } from "./result.js";
import { watchDownloads, type DownloadTotals } from "./runtime-files.js";
import { watchRun } from "./watchdog.js";

/** The sandbox's files (the worker's script); the SDK writes the frame's document (frame-doc.ts). */
const FRAME_URL = new URL("../sandbox/", import.meta.url).href;
const registry = new Map<string, Sandbox>();
// Starting (configuring a claimed engine, or booting one) is work too.
setBusyCheck(() => [...registry.values()].some(({ state }) => state === "busy" || state === "starting"));

/** Dispatched by a Sandbox whenever `state` changes; `detail.state` is the new state. */
export type StateChangeEvent = CustomEvent<{ state: SandboxState }>;

export class Sandbox extends EventTarget {
  readonly id = crypto.randomUUID();
  readonly createdAt = Date.now();
  lastUsedAt = this.createdAt;
  private current: SandboxState = "starting";
  private engine: Engine | null = null;
  private readonly mirror = new FileMirror();
  private queue: Promise<unknown> = Promise.resolve();
  /** Resolves when a (re)started engine is ready; every queued call waits for it. */
  private ready: Promise<void>;

  private constructor(private readonly settings: Settings) {
    super();
    this.ready = this.attachEngine();
  }

  /** A ready sandbox; quick when the warm spare is booted. */
  static async create(options: CreateOptions = {}): Promise<Sandbox> {
    const sandbox = new Sandbox(settingsOf(options));
    registry.set(sandbox.id, sandbox);
    const { onProgress } = options;
    const report = (phase: StartProgress["phase"], totals: DownloadTotals) => {
      try {
        onProgress?.({ phase, ...totals });
      } catch {
        // a throwing progress callback must not break start-up
      }
    };
    const stopWatching = onProgress
      ? watchDownloads((t) => report(t.loadedBytes < t.totalBytes ? "downloading" : "starting", t))
      : () => undefined;
    try {
      await sandbox.ready;
    } catch (error) {
      await sandbox.close();
      throw error;
    } finally {
      stopWatching();
    }
    watchDownloads((t) => report("ready", t))();
    return sandbox;
  }

  static get(id: string): Sandbox | undefined {
    return registry.get(id);
  }

  static list(): SandboxInfo[] {
    return [...registry.values()].map((s) => ({ id: s.id, state: s.state, createdAt: s.createdAt, lastUsedAt: s.lastUsedAt }));
  }

  /**
   * Boot the warm spare ahead of the first `create` (e.g. at page load). `packages` are loaded
   * and imported by that spare once it has booted, in the background, so the session that takes
   * it finds `import pandas` instant; already imported, they do not show in `audit.importedModules`.
   */
  static warmup(options: { packages?: string[] } = {}): Promise<void> {
    const packages = options.packages ?? [];
    if (!Array.isArray(packages) || packages.length > 50 || !packages.every((p) => typeof p === "string" && p.length < 100)) {
      return Promise.reject(new TypeError("warmup packages must be a list of at most 50 package names"));
    }
    return warmSpare(FRAME_URL, [...packages]);
  }

  /** Stop the warm spare. */
  static cooldown(): void {
    dropSpare(FRAME_URL);
  }

  get state(): SandboxState {
    return this.current;
  }

  /** How a stopped run ends in this browser (see `environment()` for why); null while no engine is attached. */
  get mode(): SandboxMode | null {
    return this.engine ? modeOf(this.engine.isolated).mode : null;
  }

  /** Run `code`; resolves with an ExecutionResult for anything the code does. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    if (typeof code !== "string") return Promise.reject(new TypeError("code must be a string"));
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    let files: ReturnType<typeof filesOf>;
    try {
      files = filesOf(options.files ?? []);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async (engine) => {
      const started = performance.now();
      if (options.signal?.aborted) return cancelledBeforeStart(code);
      for (const file of files) await this.put(engine, file.path, file.data);
      this.setState("busy");
      const { kernel } = this.settings;
      const watched = await watchRun(engine, code, {
        timeoutMs,
        limits: { stdout: kernel.stdoutLimit, stderr: kernel.stderrLimit },
        sinks: { stdout: options.onStdout, stderr: options.onStderr },
        signal: options.signal,
      });
      let stateLost = watched.engineLost;
      const { result } = watched;
      if (this.isClosed()) {
        result.outcome = "OUTCOME_CANCELLED";
        return { ...result, durationMs: performance.now() - started, stateLost: true };
      }
      // Whatever the outcome: files written before a failure survive a later restart too.
      if (!stateLost) await this.mirror.capture(engine, result.files);
      const budget = this.settings.memoryBudgetBytes;
      if (!stateLost && (result.audit.peakMemoryBytes ?? 0) > budget) {
        engine.kill("memory budget exceeded");
        stateLost = true;
        overBudget(result, budget);
      }
      if (stateLost) this.ready = this.attachEngine();
      const out: ExecutionResult = { ...result, durationMs: performance.now() - started, stateLost };
      if (options.expect !== undefined) out.validation = validateValue(result.value, options.expect);
      return out;
    });
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const [file] = filesOf([{ path, data }]);
    await this.enqueue((engine) => this.put(engine, file!.path, file!.data));
  }

  readFile(path: string): Promise<Uint8Array> {
    return this.enqueue(async (engine) => {
      const reply = expectReply(await engine.call({ type: "read-file", path }), "file");
      return reply.data;
    });
  }

  listFiles(): Promise<FileInfo[]> {
    return this.enqueue(async (engine) => expectReply(await engine.call({ type: "list-files" }), "files").files);
  }

  /** The kernel's description, with the limits the host enforces added to `limits` and the mode (interrupt or terminate-only). */
  environment(): Promise<SandboxEnvironment> {
    return this.enqueue(async (engine) => {
      const { environment } = expectReply(await engine.call({ type: "environment" }), "environment");
      const { timeoutMs, memoryBudgetBytes } = this.settings;
      environment.limits = { ...environment.limits, timeoutMs, memoryBudgetBytes, maxRequestBytes: LIMITS.maxFileBytes };
      return { ...environment, ...modeOf(engine.isolated) };
    });
  }

  /** Free the worker; a run in progress ends as OUTCOME_CANCELLED. */
  async close(): Promise<void> {
    this.setState("closed");
    registry.delete(this.id);
    this.engine?.kill("the sandbox was closed");
    this.engine = null;
  }

  private setState(state: SandboxState): void {
    if (state === this.current) return;
    this.current = state;
    this.dispatchEvent(new CustomEvent("statechange", { detail: { state } }));
  }

  private isClosed(): boolean {
    return this.current === "closed";
  }

  private async put(engine: Engine, path: string, data: Uint8Array): Promise<void> {
    expectReply(await engine.call({ type: "write-file", path, data }), "done");
    this.mirror.set(path, data);
  }

  /** Calls on one sandbox run one at a time, in order, each on a ready engine. */
  private enqueue<T>(task: (engine: Engine) => Promise<T>): Promise<T> {
    if (this.current === "closed") return Promise.reject(new Error(`the sandbox is ${this.current}`));
    const run = this.queue.then(async () => {
      await this.ready;
      if (this.current === "closed" || !this.engine) throw new Error("the sandbox is closed");
      this.lastUsedAt = Date.now();
      try {
        return await task(this.engine);
      } finally {
        if (this.current === "busy") this.setState("ready");
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Take a booted engine, configure it for this sandbox, and restore the mirrored files. */
  private async attachEngine(): Promise<void> {
    if (this.current !== "closed") this.setState("starting");
    this.engine = null;
    const engine = await claimEngine(FRAME_URL);
    if (this.current === "closed") return engine.kill();
    expectReply(await engine.call({ type: "configure", config: this.settings.kernel }), "done");
    await this.mirror.restore(engine);
    engine.onDeath = () => {
      if (this.current === "ready") this.ready = this.attachEngine();
    };
    this.engine = engine;
    this.setState("ready");
  }
}

/** `environment()`: the kernel's description plus how this browser lets runs be stopped. */
export type SandboxEnvironment = Environment & ModeReport;

/** A run that ended over the sandbox's memory budget: its outcome says so, whatever it was. */
function overBudget(result: KernelResult, budget: number): void {
  const used = result.audit.peakMemoryBytes ?? 0;
  const message =
    `the run used ${used} bytes of memory, over the sandbox's memoryBudgetBytes of ${budget}; ` +
    "the sandbox was restarted, so variables and imports are gone (files are kept)";
  result.outcome = "OUTCOME_MEMORY_EXCEEDED";
  result.error = { name: "MemoryError", message, traceback: result.error?.traceback ?? "" };
}

type ReplyOf<T extends string> = Extract<WorkerReply, { type: T }>;

/** The reply of the expected type; a `failed` reply becomes an Error with the worker's message. */
function expectReply<T extends WorkerReply["type"]>(reply: WorkerReply, type: T): ReplyOf<T> {
  if (reply.type === type) return reply as ReplyOf<T>;
  if (reply.type === "failed") throw new Error(reply.error.message);
  throw new Error(`the sandbox answered ${reply.type} where ${type} was expected`);
}
