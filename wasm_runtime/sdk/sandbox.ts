// The public `Sandbox`: lifecycle, a queue per sandbox, execute, files and environment, as
// DESIGN.md defines. What a run's end means for the sandbox is run-end.ts's; what a session adds
// (carried files and variables, history, app data, saving) is its SessionBinding's
// (session/binding.ts); the page's sandboxes are its Registry's.
import type { ExecutionResult, FileInfo, WorkerReply } from "../protocol/types.js";
import { attachEngine } from "./attach.js";
import { busyWhile, whenIdle } from "./background.js";
import type { Engine } from "./engine.js";
import { SandboxError } from "./errors.js";
import type { RestartedDetail, SandboxEnvironment } from "./events.js";
import { FileMirror } from "./mirror.js";
import { describe } from "./environment.js";
import { modeOf, type SandboxMode } from "./mode.js";
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
} from "./options.js";
import { dropSpare, warmup, type WarmupOptions } from "./pool.js";
import { followStart } from "./progress.js";
import { Registry } from "./registry.js";
import { expectReply, type EngineRequest, type ReplyOf } from "./reply.js";
import { endRun } from "./run-end.js";
import { cancelledBeforeStart } from "./result.js";
import type { SessionBinding } from "./session/binding.js";
import type { ResumeReport } from "./session/persisted.js";
import { deleteSaved, listed, newSession, renameSaved, savedSession } from "./session/saved.js";
import type { HistoryEntry } from "./session/store.js";
import { grantTools, runCallsFor, toolsOf, ToolSet, type RunCalls } from "./tools.js";
import { watchRun } from "./watchdog.js";

/** The sandbox's files (the worker's script); the SDK writes the frame's document (frame-doc.ts). */
const FRAME_URL = new URL("../sandbox/", import.meta.url).href;

export type { SandboxEnvironment } from "./events.js";

export class Sandbox extends EventTarget {
  /** This page's sandboxes, made on first use: importing the SDK reads no storage and starts nothing. */
  private static page: Registry<Sandbox> | null = null;
  readonly createdAt: number;
  lastUsedAt: number;
  private current: SandboxState = "starting";
  private engine: Engine | null = null;
  private readonly mirror = new FileMirror();
  private queue: Promise<unknown> = Promise.resolve();
  /** Resolves when a (re)started engine is ready; every queued call waits for it. */
  private ready: Promise<void>;
  /** Why the worker was lost while idle: the next run's result says so, never silently different. */
  private lostWhileIdle: string | null = null;

  private constructor(
    readonly id: string,
    private readonly settings: Settings,
    private readonly session: SessionBinding,
    tools: ToolSet,
  ) {
    super();
    grantTools(this, tools);
    Sandbox.registry().activity.note(this, true); // starting
    ({ createdAt: this.createdAt, lastUsedAt: this.lastUsedAt } = session.times());
    session.bind({
      enqueue: (task) => this.enqueue(task),
      closed: () => this.isClosed(),
      saveFailed: (error) => this.dispatchEvent(new CustomEvent("savefailed", { detail: { error } })),
      mirror: this.mirror,
    });
    this.ready = this.attachEngine();
  }

  private static registry(): Registry<Sandbox> {
    Sandbox.page ??= new Registry();
    return Sandbox.page;
  }

  /** A ready sandbox; quick when the warm spare is booted. With `persist`, saved after each run. */
  static async create(options: CreateOptions = {}): Promise<Sandbox> {
    const settings = settingsOf(options);
    const tools = ToolSet.of(options.tools);
    const ttlDays = ttlOf(options.persist);
    const title = titleOf(options.title);
    const page = Sandbox.registry();
    void page.catalogRead();
    const id = crypto.randomUUID();
    const session = await newSession(id, settings, ttlDays, title, page.activity);
    return Sandbox.open(new Sandbox(id, settings, session, tools), options.onProgress);
  }

  /**
   * A persisted sandbox back in a new worker: its files, variables and history. The page that
   * has it open gets that same Sandbox; another tab holding it makes this throw SessionLocked.
   * `resumeReport` names what could not be restored. Tools are never saved: `tools` are granted
   * again (an open sandbox's replaced), and Python names bound to tools before call these.
   */
  static async resume(id: string, options: Pick<CreateOptions, "onProgress" | "tools"> = {}): Promise<Sandbox> {
    if (typeof id !== "string") throw new TypeError("resume needs a sandbox id");
    const tools = options.tools === undefined ? null : ToolSet.of(options.tools);
    const page = Sandbox.registry();
    const open = page.open.get(id);
    if (open) {
      if (tools) grantTools(open, tools);
      return open;
    }
    await page.catalogRead();
    const { settings, session } = await savedSession(id, page.activity);
    try {
      return await Sandbox.open(new Sandbox(id, settings, session, tools ?? ToolSet.empty), options.onProgress);
    } catch (error) {
      session.closed();
      throw error;
    }
  }

  /** Remove a sandbox and everything it stored (closing it first if this page has it open). */
  static async delete(id: string): Promise<void> {
    if (typeof id !== "string") throw new TypeError("delete needs a sandbox id");
    const page = Sandbox.registry();
    await page.catalogRead();
    await page.open.get(id)?.close({ save: false });
    await deleteSaved(id);
  }

  /** Rename a persisted sandbox, open in this page or not (another tab holding it: SessionLocked). */
  static async rename(id: string, title: string): Promise<void> {
    const page = Sandbox.registry();
    const open = page.open.get(id);
    if (open) return open.rename(title);
    await page.catalogRead();
    await renameSaved(id, title);
  }

  /** Read the page's saved sessions once (expired ones removed first), so that `list()` names them. */
  static loadSaved(): Promise<void> {
    return Sandbox.registry().catalogRead();
  }

  /** Register, wait until ready (closing on failure), and save a persisted sandbox once. */
  private static async open(sandbox: Sandbox, onProgress: CreateOptions["onProgress"]): Promise<Sandbox> {
    Sandbox.registry().open.set(sandbox.id, sandbox);
    const progress = followStart(onProgress);
    try {
      await sandbox.ready;
    } catch (error) {
      progress(false);
      await sandbox.close();
      throw error;
    }
    progress(true);
    sandbox.session.opened();
    return sandbox;
  }

  /** A new sandbox with a copy of this one's files, variables and history (persisted if this one is). */
  async fork(options: Pick<CreateOptions, "title" | "onProgress"> = {}): Promise<Sandbox> {
    const id = crypto.randomUUID();
    const session = await this.session.fork(id, this.settings, titleOf(options.title), Sandbox.registry().activity);
    return Sandbox.open(new Sandbox(id, this.settings, session, toolsOf(this)), options.onProgress);
  }

  static get(id: string): Sandbox | undefined {
    return Sandbox.registry().open.get(id);
  }

  /** This page's sandboxes, then the saved ones no page of this tab has open (session/catalog.ts). */
  static list(): SandboxInfo[] {
    const page = Sandbox.registry();
    void page.catalogRead();
    return listed([...page.open.values()], (sandbox) => sandbox.session);
  }

  /**
   * Boot the warm spare ahead of the first `create` (e.g. at page load). `packages` are loaded
   * and imported by that spare once it has booted, in the background, so the session that takes
   * it finds `import pandas` instant; already imported, they do not show in `audit.importedModules`.
   * `refill` says when a claimed spare's replacement boots: "soon" (default: once the page is
   * idle, within 1.5 s) or "quiet" (after 1 s with no sandbox starting or running code).
   * `idlePackages` (default ["matplotlib"]) are loaded by a spare asked for no packages, once the
   * page is quiet and while nobody has claimed it; `[]` turns that off (pool.ts).
   */
  static warmup(options: WarmupOptions = {}): Promise<void> {
    return warmup(FRAME_URL, Sandbox.registry().activity, options);
  }

  /**
   * Resolves once no sandbox of this page is starting or running code, at an idle moment: for
   * work that must not slow a sandbox's start or first result (the embed and the app register
   * their service worker then; the SDK stores runtime files for the next visit then).
   */
  static whenIdle(): Promise<void> {
    return whenIdle(Sandbox.registry().activity);
  }

  /**
   * Work of the page a result's paint waits on (the app and the embed draw a chart with it): until
   * `work` settles, and for at most 10 s, the page counts as busy, as while a sandbox runs code, so
   * background work (runtime files kept for the next visit, a spare's refill, `whenIdle`'s
   * callers) waits for it rather than taking the page's main thread and the CPU from it.
   */
  static busyWhile(work: Promise<unknown>): void {
    busyWhile(Sandbox.registry().activity, work);
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

  /** The code and result of each run (kept for persisted sandboxes, restored on resume). */
  get history(): HistoryEntry[] {
    return this.session.history;
  }

  /** Set by `resume` and `fork`: what came back into the new worker and what did not. */
  get resumeReport(): ResumeReport | null {
    return this.session.resumeReport;
  }

  /** The last save's error, until a save succeeds; see the `savefailed` event. */
  get saveError(): Error | null {
    return this.session.saveError;
  }

  /** A persisted sandbox's name in `Sandbox.list()`. */
  get title(): string | undefined {
    return this.session.title;
  }

  /** Whatever the embedding app keeps with this sandbox (JSON-like data), saved with it. */
  get appData(): unknown {
    return this.session.appData;
  }

  setAppData(data: unknown): void {
    this.session.setAppData(data);
  }

  rename(title: string): Promise<void> {
    return this.session.rename(title);
  }

  /** Resolves once every save asked for so far is written; rejects with a failed save's error. */
  flush(): Promise<void> {
    return this.session.flush();
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
      // A worker lost while idle, before this run: what was in memory then is gone (or restored).
      const lostWhileIdle = this.lostWhileIdle;
      this.lostWhileIdle = null;
      for (const file of files) await this.put(engine, file.path, file.data);
      this.setState("busy");
      const { kernel } = this.settings;
      const watched = await watchRun(engine, code, {
        timeoutMs,
        limits: { stdout: kernel.stdoutLimit, stderr: kernel.stderrLimit },
        sinks: { stdout: options.onStdout, stderr: options.onStderr },
        onImport: options.onImport,
        signal: options.signal,
        calls,
      });
      const { settings, mirror, session } = this;
      const closed = (): boolean => this.isClosed();
      const restart = (): Promise<void> => (this.ready = this.attachEngine(true));
      const run = { code, started, lostWhileIdle, expect: options.expect };
      return endRun({ settings, mirror, session, closed, restart }, engine, watched, run);
    });
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const [file] = filesOf([{ path, data }]);
    await this.enqueue((engine) => this.put(engine, file!.path, file!.data));
    this.session.wrote(file!.path);
  }

  readFile(path: string): Promise<Uint8Array> {
    return this.ask({ type: "read-file", path }, "file").then((reply) => reply.data);
  }

  listFiles(): Promise<FileInfo[]> {
    return this.ask({ type: "list-files" }, "files").then((reply) => reply.files);
  }

  /** A bounded preview of the working directory's data files, made by the kernel (docs/agent.md). */
  describeFiles(): Promise<string> {
    return this.ask({ type: "describe-files" }, "workspace").then((reply) => reply.preview);
  }

  /** The kernel's description, with the limits the host enforces added to `limits` and the mode (interrupt or terminate-only). */
  environment(): Promise<SandboxEnvironment> {
    return this.enqueue((engine) => describe(engine, this.settings, toolsOf(this).describe()));
  }

  /** Free the worker (a run in progress: OUTCOME_CANCELLED), once a persisted sandbox's saves end. */
  async close(options: { save?: boolean } = {}): Promise<void> {
    await this.session.closing(options.save !== false && !this.isClosed());
    this.setState("closed");
    Sandbox.registry().open.delete(this.id);
    this.engine?.kill("the sandbox was closed");
    this.engine = null;
    this.session.closed();
  }

  private setState(state: SandboxState): void {
    if (state === this.current) return;
    this.current = state;
    Sandbox.registry().activity.note(this, state === "busy" || state === "starting");
    this.dispatchEvent(new CustomEvent("statechange", { detail: { state } }));
  }

  private isClosed(): boolean {
    return this.current === "closed";
  }

  private async put(engine: Engine, path: string, data: Uint8Array): Promise<void> {
    expectReply(await engine.call({ type: "write-file", path, data }), "done");
    this.mirror.set(path, data);
  }

  /** One request, in this sandbox's queue; a reply of another type throws (reply.ts). */
  private ask<T extends WorkerReply["type"]>(request: EngineRequest, type: T): Promise<ReplyOf<T>> {
    return this.enqueue(async (engine) => expectReply(await engine.call(request), type));
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

  /** A new engine for this sandbox (attach.ts); `restart`: the last one was lost. */
  private async attachEngine(restart = false): Promise<void> {
    if (!this.isClosed()) this.setState("starting");
    this.engine = null;
    const { settings, mirror, session } = this;
    const [activity, closed] = [Sandbox.registry().activity, () => this.isClosed()];
    const engine = await attachEngine({ frameUrl: FRAME_URL, activity, settings, mirror, session, closed }, restart);
    if (!engine) return;
    engine.onDeath = (error) => {
      if (this.current !== "ready") return;
      this.lostWhileIdle = error.message;
      this.ready = this.attachEngine(true);
      this.ready.then(() => this.announceRestart(error.message), () => undefined); // prettier-ignore
    };
    this.engine = engine;
    this.setState("ready");
  }

  /** Tell the page at once that an idle worker was lost and what came back (the `restarted` event). */
  private announceRestart(reason: string): void {
    const detail: RestartedDetail = { reason, stateRestored: this.session.restoredFromLastSave(false, reason) };
    this.dispatchEvent(new CustomEvent("restarted", { detail }));
  }
}
