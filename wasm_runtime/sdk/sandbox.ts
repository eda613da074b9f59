// The public `Sandbox`: lifecycle, a queue per sandbox, files, and results as DESIGN.md defines.
import {
  LIMITS,
  type BootedFrom,
  type Environment,
  type ExecutionResult,
  type FileInfo,
  type StateRestored,
  type WorkerReply,
} from "../protocol/types.js";
import type { Engine } from "./engine.js";
import { SandboxError } from "./errors.js";
import { validateValue } from "./expect.js";
import { mark } from "./marks.js";
import { FileMirror } from "./mirror.js";
import { startSnapshotFor } from "./start-snapshot.js";
import { modeOf, type ModeReport, type SandboxMode } from "./mode.js";
import { loadCatalog, forgetRecord, infoOf, noteRecord, persistedInfo, persistedInfos } from "./session/catalog.js";
import { SessionLocked, holdSessionLock } from "./session/lock.js";
import { capture, newRecord, PersistedSession, type Carried, type ResumeReport } from "./session/persisted.js";
import { askPersistentStorage, storageReport } from "./session/storage.js";
import {
  deleteSession,
  readBlobs,
  readRecord,
  retitle,
  SessionStorageFull,
  type HistoryEntry,
} from "./session/store.js";
import {
  filesOf,
  settingsOf,
  titleOf,
  ttlOf,
  type CreateOptions,
  type ExecuteOptions,
  type SandboxInfo,
  type SandboxState,
  type Settings,
  type StartProgress,
} from "./options.js";
import { claimEngine, dropSpare, noteStateChange, warmSpare, type Refill } from "./pool.js";
import { noteActivity, whenIdle } from "./background.js";
import { cancelledBeforeStart } from "./result.js";
import { prefetchPackages, watchDownloads, type DownloadTotals } from "./runtime-files.js";
import { watchRun } from "./watchdog.js";
import { grantTools, runCallsFor, toolsOf, ToolSet, type RunCalls, type ToolInfo } from "./tools.js";
import { overBudget, overBudgetAfterRun } from "./memory-budget.js";

/** The sandbox's files (the worker's script); the SDK writes the frame's document (frame-doc.ts). */
const FRAME_URL = new URL("../sandbox/", import.meta.url).href;
const registry = new Map<string, Sandbox>();
// Starting (configuring a claimed engine, or booting one) is work too: the next spare waits for it.
const anySandboxBusy = (): boolean =>
  [...registry.values()].some(({ state }) => state === "busy" || state === "starting");

// Expired persisted sandboxes go at start-up, before the page lists or resumes any.
await loadCatalog();

/** Dispatched by a Sandbox whenever `state` changes; `detail.state` is the new state. */
export type StateChangeEvent = CustomEvent<{ state: SandboxState }>;
/** Dispatched by a persisted Sandbox when a save fails; what was saved before is intact. */
export type SaveFailedEvent = CustomEvent<{ error: Error }>;
/** What a `restarted` event says: the worker was lost while idle, and what came back (persisted only). */
export interface RestartedDetail {
  reason: string;
  stateRestored: StateRestored | null;
}
/** Dispatched when the worker was lost while idle and a new one is ready; the next result says so too. */
export type RestartedEvent = CustomEvent<RestartedDetail>;

export { SessionLocked, SessionStorageFull, type ResumeReport };

/** Thrown by `Sandbox.resume` for an id with nothing saved (`type` "session_not_found"). */
export class SessionNotFound extends SandboxError {
  override name = "SessionNotFound";
  constructor(message: string) {
    super("session_not_found", message);
  }
}

/** How a sandbox starts: a new id, or a saved session's, and what it brings into its worker. */
interface Origin {
  id?: string;
  persisted?: PersistedSession;
  /** A fork's copy, or a resume's files and variables still being read (while the worker starts). */
  carried?: Carried | Promise<Carried>;
  history?: HistoryEntry[];
  appData?: unknown;
  /** The packages the carried variables need, known before they are read (a resume's record). */
  packages?: string[];
}

export class Sandbox extends EventTarget {
  readonly id: string;
  readonly createdAt: number;
  lastUsedAt: number;
  /** The code and result of each run (kept for persisted sandboxes, restored on resume). */
  readonly history: HistoryEntry[];
  /** Set by `resume` and `fork`: what came back into the new worker and what did not. */
  resumeReport: ResumeReport | null = null;
  /** The last save's error, until a save succeeds; see the `savefailed` event. */
  saveError: Error | null = null;
  private current: SandboxState = "starting";
  private engine: Engine | null = null;
  private readonly mirror = new FileMirror();
  private queue: Promise<unknown> = Promise.resolve();
  /** Resolves when a (re)started engine is ready; every queued call waits for it. */
  private ready: Promise<void>;
  private readonly persisted: PersistedSession | null;
  private carried: Carried | null = null;
  private incoming: Promise<Carried> | null = null;
  /** The packages the first worker's variables need: it boots from the package snapshot if it has them all. */
  private readonly startPackages: readonly string[];
  private data: unknown;
  private saveQueued = false;
  /** What the last restart loaded from the last save, for the run that caused it. */
  private restoredFromSave: StateRestored | null = null;
  /** Why the worker was lost while idle: the next run's result says so, never silently different. */
  private lostWhileIdle: string | null = null;
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly settings: Settings,
    origin: Origin = {},
  ) {
    super();
    this.id = origin.id ?? crypto.randomUUID();
    noteActivity(this, true); // starting
    this.persisted = origin.persisted ?? null;
    this.createdAt = this.persisted?.record.createdAt ?? Date.now();
    this.lastUsedAt = this.persisted?.record.lastUsedAt ?? this.createdAt;
    this.history = [...(origin.history ?? [])];
    this.data = origin.appData ?? null;
    if (origin.carried instanceof Promise) this.incoming = origin.carried;
    else if (origin.carried) this.carry(origin.carried);
    this.startPackages = origin.packages ?? this.carried?.state?.packages ?? [];
    this.ready = this.attachEngine();
  }

  /** A ready sandbox; quick when the warm spare is booted. With `persist`, saved after each run. */
  static async create(options: CreateOptions = {}): Promise<Sandbox> {
    const settings = settingsOf(options);
    const tools = ToolSet.of(options.tools);
    const ttlDays = ttlOf(options.persist);
    const title = titleOf(options.title);
    const id = crypto.randomUUID();
    const persisted =
      ttlDays === null
        ? undefined
        : new PersistedSession(newRecord(id, settings, ttlDays, title), await holdSessionLock(id), true);
    const sandbox = new Sandbox(settings, { id, persisted });
    grantTools(sandbox, tools);
    return Sandbox.open(sandbox, options.onProgress);
  }

  /**
   * A persisted sandbox back in a new worker: its files, variables and history. The page that
   * has it open gets that same Sandbox; another tab holding it makes this throw SessionLocked.
   * `resumeReport` names what could not be restored.
   */
  static async resume(id: string, options: Pick<CreateOptions, "onProgress"> = {}): Promise<Sandbox> {
    if (typeof id !== "string") throw new TypeError("resume needs a sandbox id");
    const open = registry.get(id);
    if (open) return open;
    mark("resume:start");
    const release = await holdSessionLock(id);
    try {
      const record = await readRecord(id);
      if (!record || record.expiresAt <= Date.now()) {
        if (record) await deleteSession(id);
        forgetRecord(id);
        throw new SessionNotFound(`no saved sandbox ${id}: it was never persisted, or was deleted or expired`);
      }
      // Read while the worker boots, wanted once it has; a package snapshot boot has them already.
      void startSnapshotFor(record.packages).then(
        (snapshot) => snapshot === "base" && prefetchPackages(record.packages),
      );
      const carried = readBlobs(id).then(({ files, state }): Carried => {
        mark("resume:read");
        return { files, state: state && { data: state, skipped: record.skipped, packages: record.packages } };
      });
      const persisted = new PersistedSession(record, release, false);
      const sandbox = new Sandbox(record.settings, {
        id,
        persisted,
        carried,
        history: record.history,
        appData: record.appData,
        packages: record.packages,
      });
      return await Sandbox.open(sandbox, options.onProgress);
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Remove a sandbox and everything it stored (closing it first if this page has it open). */
  static async delete(id: string): Promise<void> {
    if (typeof id !== "string") throw new TypeError("delete needs a sandbox id");
    const open = registry.get(id);
    if (open) await open.close({ save: false });
    const release = await holdSessionLock(id);
    try {
      await deleteSession(id);
      forgetRecord(id);
    } finally {
      release();
    }
  }

  /** Rename a persisted sandbox, open in this page or not (another tab holding it: SessionLocked). */
  static async rename(id: string, title: string): Promise<void> {
    const open = registry.get(id);
    if (open) return open.rename(title);
    const checked = titleOf(title);
    const release = await holdSessionLock(id);
    try {
      const record = await retitle(id, checked);
      if (!record) throw new SessionNotFound(`no saved sandbox ${id}`);
      noteRecord(record);
    } finally {
      release();
    }
  }

  /** Register, wait until ready (closing on failure), and save a persisted sandbox once. */
  private static async open(sandbox: Sandbox, onProgress: CreateOptions["onProgress"]): Promise<Sandbox> {
    registry.set(sandbox.id, sandbox);
    if (sandbox.persisted) void askPersistentStorage();
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
    if (sandbox.persisted && sandbox.persisted.record.bytes === 0) sandbox.scheduleSave();
    return sandbox;
  }

  /** A new sandbox with a copy of this one's files, variables and history (persisted if this one is). */
  async fork(options: Pick<CreateOptions, "title" | "onProgress"> = {}): Promise<Sandbox> {
    const { state, files } = await this.enqueue((engine) => capture(engine, "all"));
    const id = crypto.randomUUID();
    const ttlDays = this.persisted?.record.ttlDays;
    const title = titleOf(options.title) ?? (this.title !== undefined ? `${this.title} (fork)` : undefined);
    const persisted =
      ttlDays === undefined
        ? undefined
        : new PersistedSession(newRecord(id, this.settings, ttlDays, title), await holdSessionLock(id), true);
    const fork = new Sandbox(this.settings, {
      id,
      persisted,
      carried: { files, state },
      history: this.history,
      appData: structuredClone(this.data),
    });
    grantTools(fork, toolsOf(this));
    return Sandbox.open(fork, options.onProgress);
  }

  static get(id: string): Sandbox | undefined {
    return registry.get(id);
  }

  /** This page's sandboxes, then the persisted ones no page of this tab has open. */
  static list(): SandboxInfo[] {
    const live = [...registry.values()].map((s): SandboxInfo => {
      // Persisted from its creation on: before its first save commits, its record in memory says so.
      const saved = persistedInfo(s.id) ?? (s.persisted ? infoOf(s.persisted.record) : undefined);
      const base = {
        id: s.id,
        state: s.state,
        createdAt: s.createdAt,
        lastUsedAt: s.lastUsedAt,
      };
      return saved ? { ...saved, ...base, persisted: true } : { ...base, persisted: false };
    });
    const stored = persistedInfos()
      .filter(({ id }) => !registry.has(id))
      .map((info): SandboxInfo => ({
        ...info,
        state: "closed",
        persisted: true,
      }));
    return [...live, ...stored];
  }

  /**
   * Boot the warm spare ahead of the first `create` (e.g. at page load). `packages` are loaded
   * and imported by that spare once it has booted, in the background, so the session that takes
   * it finds `import pandas` instant; already imported, they do not show in `audit.importedModules`.
   * `refill` says when a claimed spare's replacement boots: "soon" (default: once the page is
   * idle, within 1.5 s) or "quiet" (after 1 s with no sandbox starting or running code).
   */
  static warmup(options: { packages?: string[]; refill?: Refill } = {}): Promise<void> {
    const packages = options.packages ?? [];
    const refill = options.refill ?? "soon";
    if (refill !== "soon" && refill !== "quiet") {
      return Promise.reject(new TypeError('warmup refill must be "soon" or "quiet"'));
    }
    if (
      !Array.isArray(packages) ||
      packages.length > 50 ||
      !packages.every((p) => typeof p === "string" && p.length < 100)
    ) {
      return Promise.reject(new TypeError("warmup packages must be a list of at most 50 package names"));
    }
    return warmSpare(FRAME_URL, [...packages], refill);
  }

  /**
   * Resolves once no sandbox of this page is starting or running code, at an idle moment: for
   * work that must not slow a sandbox's start or first result (the embed and the app register
   * their service worker then; the SDK stores runtime files for the next visit then).
   */
  static whenIdle(): Promise<void> {
    return whenIdle();
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

  /** A persisted sandbox's name in `Sandbox.list()`. */
  get title(): string | undefined {
    return this.persisted?.record.title;
  }

  /** Whatever the embedding app keeps with this sandbox (JSON-like data), saved with it. */
  get appData(): unknown {
    return this.data;
  }

  setAppData(data: unknown): void {
    this.data = structuredClone(data);
    this.scheduleSave();
  }

  async rename(title: string): Promise<void> {
    if (!this.persisted) throw new SandboxError("not_persisted", "only a persisted sandbox has a title");
    this.persisted.record.title = titleOf(title);
    this.scheduleSave();
    await this.flush();
  }

  /** Resolves once every save asked for so far is written; rejects with a failed save's error. */
  async flush(): Promise<void> {
    await this.saving;
    if (this.saveError) throw this.saveError;
  }

  /** Run `code`; resolves with an ExecutionResult for anything the code does. */
  execute(code: string, options: ExecuteOptions = {}): Promise<ExecutionResult> {
    if (typeof code !== "string") return Promise.reject(new TypeError("code must be a string"));
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    let files: ReturnType<typeof filesOf>;
    let calls: RunCalls;
    try {
      files = filesOf(options.files ?? []);
      calls = runCallsFor(this, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(async (engine) => {
      const started = performance.now();
      if (options.signal?.aborted) return cancelledBeforeStart(code);
      const idleLoss = this.takeIdleLoss();
      for (const file of files) await this.put(engine, file.path, file.data);
      this.setState("busy");
      const { kernel } = this.settings;
      const watched = await watchRun(engine, code, {
        timeoutMs,
        limits: { stdout: kernel.stdoutLimit, stderr: kernel.stderrLimit },
        sinks: { stdout: options.onStdout, stderr: options.onStderr },
        signal: options.signal,
        calls,
      });
      let stateLost = watched.engineLost;
      const { result } = watched;
      if (this.isClosed()) {
        result.outcome = "OUTCOME_CANCELLED";
        return {
          ...result,
          durationMs: performance.now() - started,
          stateLost: true,
        };
      }
      // Whatever the outcome: files written before a failure survive a later restart too.
      if (!stateLost) await this.mirror.capture(engine, result.files);
      const budget = this.settings.memoryBudgetBytes;
      const over = !stateLost && overBudgetAfterRun(engine.memoryBudget, result, budget);
      if (over) {
        engine.kill("memory budget exceeded");
        stateLost = true;
      }
      let stateRestored: StateRestored | null = idleLoss?.restored ?? null;
      if (stateLost) {
        this.ready = this.attachEngine(true);
        // A persisted sandbox's result says which saved variables came back, so it waits for them.
        if (this.persisted)
          stateRestored = await this.ready.then(
            () => this.takeRestored(),
            () => null,
          );
      }
      if (over) overBudget(result, budget, stateRestored);
      const out: ExecutionResult = {
        ...result,
        durationMs: performance.now() - started,
        // A worker lost while idle, before this run: what was in memory then is gone (or restored).
        stateLost: stateLost || idleLoss !== null,
        ...(stateRestored ? { stateRestored } : {}),
      };
      if (options.expect !== undefined) out.validation = validateValue(result.value, options.expect);
      if (this.persisted) {
        this.history.push({ code, result: out, at: Date.now() });
        this.persisted.markFiles(result.files.map((f) => f.path));
        this.persisted.markState();
        this.scheduleSave();
      }
      return out;
    });
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const [file] = filesOf([{ path, data }]);
    await this.enqueue((engine) => this.put(engine, file!.path, file!.data));
    this.persisted?.markFiles([file!.path]);
    this.scheduleSave();
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

  /**
   * A bounded text preview of the working directory's data files (columns, dtypes, row counts,
   * first rows), made by the kernel from each file's head; files unchanged since the last call
   * are not read again. "" when there are no files.
   */
  describeFiles(): Promise<string> {
    return this.enqueue(
      async (engine) => expectReply(await engine.call({ type: "describe-files" }), "workspace").preview,
    );
  }

  /** The kernel's description, with the limits the host enforces added to `limits` and the mode (interrupt or terminate-only). */
  environment(): Promise<SandboxEnvironment> {
    return this.enqueue(async (engine) => {
      const { environment } = expectReply(await engine.call({ type: "environment" }), "environment");
      const { timeoutMs, memoryBudgetBytes } = this.settings;
      environment.limits = {
        ...environment.limits,
        timeoutMs,
        memoryBudgetBytes,
        memoryBudgetHeld: engine.memoryBudget,
        maxRequestBytes: LIMITS.maxFileBytes,
      };
      return {
        ...environment,
        tools: toolsOf(this).describe(),
        ...modeOf(engine.isolated),
        storage: await storageReport(),
        snapshot: engine.bootedFrom,
      };
    });
  }

  /**
   * Free the worker; a run in progress ends as OUTCOME_CANCELLED. A persisted sandbox first
   * finishes its saves (a failed one stays failed: what was saved before is kept).
   */
  async close(options: { save?: boolean } = {}): Promise<void> {
    if (this.persisted && options.save !== false && this.current !== "closed")
      await this.flush().catch(() => undefined);
    this.setState("closed");
    registry.delete(this.id);
    this.engine?.kill("the sandbox was closed");
    this.engine = null;
    this.persisted?.release();
  }

  /** Save after the queued calls, off the run's path; one save waits at most. */
  private scheduleSave(): void {
    const persisted = this.persisted;
    if (!persisted || this.saveQueued || this.isClosed() || persisted.coveredByCapture()) return;
    const direct = persisted.recordOnly(this.history, this.data);
    if (!direct) this.saveQueued = true;
    const batch = direct
      ? Promise.resolve(direct)
      : this.enqueue((engine) => {
          this.saveQueued = false;
          return persisted.snapshot(engine, () => ({ history: this.history, appData: this.data }));
        });
    this.saving = batch
      .then((b) =>
        persisted.write(b).catch((error: unknown) => {
          persisted.retryFiles(b);
          throw error;
        }),
      )
      .then(
        () => void (this.saveError = null),
        (error: unknown) => {
          this.saveQueued = false;
          if (this.isClosed()) return;
          this.saveError = error instanceof Error ? error : new Error(String(error));
          this.dispatchEvent(
            new CustomEvent("savefailed", {
              detail: { error: this.saveError },
            }),
          );
        },
      );
  }

  /**
   * Every request that makes `engine` this sandbox's, posted at once (the worker takes them in
   * order): the saved packages' preload, the configuration, the mirrored files, the carried
   * variables. Each step's promise is awaited by the caller, in that order.
   */
  private sendSession(engine: Engine): { configured: Promise<void>; files: Promise<void>; state: Promise<void> } {
    // Saved variables need their packages: the worker loads them while it takes the files.
    const packages = this.carried?.state?.packages ?? [];
    if (packages.length) void engine.call({ type: "preload", packages }).catch(() => undefined);
    const configured = engine
      .call({ type: "configure", config: this.settings.kernel })
      .then((reply) => void expectReply(reply, "done"));
    const files = this.mirror.restore(engine);
    const state = this.carried ? this.restoreCarried(engine, this.carried) : Promise.resolve();
    for (const step of [configured, files, state]) step.catch(() => undefined); // awaited by the caller
    return { configured, files, state };
  }

  /**
   * Put carried variables into a new engine and report: a resume's or fork's (`resumeReport`), or
   * a restart's last save (`stateRestored` of the run that lost the worker).
   */
  private async restoreCarried(engine: Engine, { files, state, savedAt }: Carried): Promise<void> {
    this.carried = null;
    const notRestored = [...(state?.skipped ?? [])];
    let restored: string[] = [];
    if (state) {
      // Used once: the bytes move to the worker rather than being copied (a view is copied first).
      const { data } = state;
      const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : data.slice();
      const reply = expectReply(
        await engine.call({ type: "load-state", data: whole, packages: state.packages }, [whole.buffer]),
        "state-loaded",
      );
      restored = reply.restored;
      notRestored.push(...reply.failed);
      for (const { name, at } of reply.steps) mark(`worker:state:${name}`, at);
    }
    if (savedAt !== undefined) {
      this.restoredFromSave = { savedAt, restored, notRestored };
      return;
    }
    this.resumeReport = {
      files: [...files.keys()].sort(),
      restored,
      notRestored,
      runs: this.history.length,
    };
  }

  /** What a new worker gets: the files (kept by the mirror from now on) and the variables. */
  private carry(carried: Carried): void {
    this.carried = carried;
    for (const [path, data] of carried.files) this.mirror.set(path, data);
  }

  private setState(state: SandboxState): void {
    if (state === this.current) return;
    this.current = state;
    noteStateChange();
    noteActivity(this, state === "busy" || state === "starting");
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
    if (this.current === "closed") return Promise.reject(new SandboxError("closed", `the sandbox is ${this.current}`));
    const run = this.queue.then(async () => {
      await this.ready;
      if (this.current === "closed" || !this.engine) throw new SandboxError("closed", "the sandbox is closed");
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

  /** Tell the page at once that an idle worker was lost and what came back (the `restarted` event). */
  private announceRestart(reason: string): void {
    const restored = this.restoredFromSave;
    const detail: RestartedDetail = {
      reason,
      stateRestored: restored && { ...restored, whileIdle: true, reason },
    };
    this.dispatchEvent(new CustomEvent("restarted", { detail }));
  }

  /** The idle loss the next run reports: why, and for a persisted sandbox what its last save gave back. */
  private takeIdleLoss(): { restored: StateRestored | null } | null {
    const reason = this.lostWhileIdle;
    if (reason === null) return null;
    this.lostWhileIdle = null;
    const restored = this.takeRestored();
    return { restored: restored && { ...restored, whileIdle: true, reason } };
  }

  private takeRestored(): StateRestored | null {
    const restored = this.restoredFromSave;
    this.restoredFromSave = null;
    return restored;
  }

  /**
   * Take an engine, configure it for this sandbox, and restore the mirrored files. After a
   * lost engine (`restart`) a persisted sandbox also gets its last save's variables back, so the
   * next save never overwrites them with an empty interpreter's.
   */
  private async attachEngine(restart = false): Promise<void> {
    // Variables to restore: the next spare waits until they are in (pool.ts says why).
    let restored = (): void => undefined;
    const restoring =
      this.incoming || this.carried || (restart && this.persisted)
        ? new Promise<void>((resolve) => (restored = resolve))
        : undefined;
    try {
      await this.attach(restart, restoring);
    } finally {
      restored();
    }
  }

  private async attach(restart: boolean, restoring: Promise<void> | undefined): Promise<void> {
    if (this.current !== "closed") this.setState("starting");
    this.engine = null;
    const needed = restart ? (this.persisted?.savedPackages ?? []) : this.startPackages;
    const snapshot = await startSnapshotFor(needed);
    // A new engine takes requests before its worker has booted: the session's files and variables
    // are sent as soon as they are here, so that copying tens of MB to the worker overlaps its boot.
    let reachable!: (engine: Engine) => void;
    const early = new Promise<Engine>((resolve) => (reachable = resolve));
    const booted = claimEngine(FRAME_URL, anySandboxBusy, restoring, snapshot, reachable);
    booted.catch(() => undefined); // awaited below
    const [engine, saved, incoming] = await Promise.all([
      Promise.race([early, booted]),
      restart && this.persisted ? this.persisted.lastSaved().catch(() => null) : null,
      this.incoming?.then(
        (carried) => ({ carried }),
        (error: unknown) => ({ error }),
      ),
    ]);
    this.incoming = null;
    if (incoming && "error" in incoming) {
      engine.kill();
      throw incoming.error;
    }
    if (incoming) this.carry(incoming.carried);
    if (this.current === "closed") return engine.kill();
    const resuming = this.carried !== null; // a resume or a fork (their steps are marked)
    if (saved)
      this.carried = {
        files: new Map(),
        state: saved.state,
        savedAt: saved.savedAt,
      };
    const { configured, files, state } = this.sendSession(engine);
    await booted;
    if (resuming) mark("resume:engine");
    await configured;
    await files;
    if (resuming) mark("resume:files");
    await state;
    if (resuming) mark("resume:state");
    if (this.isClosed()) return engine.kill(); // closed while the worker booted
    engine.onDeath = (error) => {
      if (this.current !== "ready") return;
      this.lostWhileIdle = error.message;
      this.ready = this.attachEngine(true);
      this.ready.then(
        () => this.announceRestart(error.message),
        () => undefined,
      );
    };
    this.engine = engine;
    this.setState("ready");
  }
}

/**
 * `environment()`: the kernel's description plus how this browser lets runs be stopped, and the
 * snapshot the worker started from ("packages": numpy and pandas came imported; see StartSnapshot).
 */
export type SandboxEnvironment = Environment & ModeReport & { snapshot: BootedFrom; tools: ToolInfo[] };

type ReplyOf<T extends string> = Extract<WorkerReply, { type: T }>;

/** The reply of the expected type; a `failed` reply becomes a SandboxError with the worker's error. */
function expectReply<T extends WorkerReply["type"]>(reply: WorkerReply, type: T): ReplyOf<T> {
  if (reply.type === type) return reply as ReplyOf<T>;
  if (reply.type === "failed") {
    const { error, limit } = reply;
    const details = { errorName: error.name, traceback: error.traceback };
    if (limit)
      throw new SandboxError("limit_exceeded", error.message, { ...details, ...limit, path: limit.path ?? undefined });
    throw new SandboxError("request_failed", error.message, details);
  }
  throw new SandboxError("protocol", `the sandbox answered ${reply.type} where ${type} was expected`, {
    field: "type",
  });
}
