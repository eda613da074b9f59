// What a session adds to a sandbox's lifecycle: the files and variables it carries into a new
// worker (a resume's or a fork's, and after a lost worker a persisted sandbox's last save), its
// history and app data, and for a persisted sandbox a save after each change. The Sandbox calls
// the hooks below at its lifecycle's steps; only session/ knows of records and IndexedDB.
import type { ExecutionResult, StateRestored } from "../../protocol/types.js";
import type { Activity } from "../activity.js";
import type { Engine } from "../engine.js";
import { SandboxError } from "../errors.js";
import { mark } from "../marks.js";
import type { FileMirror } from "../mirror.js";
import { titleOf, type Settings } from "../options.js";
import { expectReply } from "../reply.js";
import { infoOf, persistedInfo, type PersistedInfo } from "./catalog.js";
import { holdSessionLock } from "./lock.js";
import { capture, newRecord, PersistedSession, type Carried, type ResumeReport } from "./persisted.js";
import { askPersistentStorage } from "./storage.js";
import type { HistoryEntry } from "./store.js";

/** What the worker restores variables with (sandbox/state.ts). */
const PICKLER = "cloudpickle";

/** What a binding needs of its sandbox. */
export interface SandboxSide {
  /** Run `task` on the sandbox's queue, with its engine. */
  enqueue<T>(task: (engine: Engine) => Promise<T>): Promise<T>;
  closed(): boolean;
  /** A save failed: the sandbox dispatches `savefailed`. */
  saveFailed(error: Error): void;
  /** The sandbox's files: carried ones go there, and from there into each new worker. */
  mirror: FileMirror;
}

/** How a session starts: saved or not, and what it brings into its first worker. */
export interface Origin {
  persisted?: PersistedSession;
  /** A fork's copy, or a resume's files and variables still being read (while the worker starts). */
  carried?: Carried | Promise<Carried>;
  history?: HistoryEntry[];
  appData?: unknown;
  /** The packages the carried variables need, known before they are read (a resume's record). */
  packages?: string[];
}

export class SessionBinding {
  /** Set by `resume` and `fork`: what came back into the new worker and what did not. */
  resumeReport: ResumeReport | null = null;
  /** The last save's error, until a save succeeds. */
  saveError: Error | null = null;
  /** The code and result of each run (kept for persisted sandboxes, restored on resume). */
  readonly history: HistoryEntry[];
  private data: unknown;
  private readonly persisted: PersistedSession | null;
  private carried: Carried | null = null;
  private incoming: Promise<Carried> | null = null;
  /** The packages the first worker's variables need: it boots from the package snapshot if it has them all. */
  private readonly startPackages: readonly string[];
  /** What the last restart loaded from the last save, for the run (or `restarted` event) it concerns. */
  private restoredFromSave: StateRestored | null = null;
  private saveQueued = false;
  private saving: Promise<void> = Promise.resolve();
  private side: SandboxSide | null = null;

  constructor(origin: Origin = {}) {
    this.persisted = origin.persisted ?? null;
    this.history = [...(origin.history ?? [])];
    this.data = origin.appData ?? null;
    if (origin.carried instanceof Promise) this.incoming = origin.carried;
    else if (origin.carried) this.carried = origin.carried;
    this.startPackages = origin.packages ?? this.carried?.state?.packages ?? [];
  }

  /** Called once by the sandbox it belongs to, before its first worker starts. */
  bind(side: SandboxSide): void {
    this.side = side;
    if (this.carried) this.carry(this.carried);
    if (this.persisted) void askPersistentStorage();
  }

  get title(): string | undefined {
    return this.persisted?.record.title;
  }

  /** When the sandbox was created and last used: its saved record's, or now. */
  times(): { createdAt: number; lastUsedAt: number } {
    const createdAt = this.persisted?.record.createdAt ?? Date.now();
    return { createdAt, lastUsedAt: this.persisted?.record.lastUsedAt ?? createdAt };
  }

  /** What `Sandbox.list()` says of a persisted sandbox: its last save, or before that its record in memory. */
  info(id: string): PersistedInfo | undefined {
    return persistedInfo(id) ?? (this.persisted ? infoOf(this.persisted.record) : undefined);
  }

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

  /** The sandbox is ready for the first time: a persisted one is saved once. */
  opened(): void {
    if (this.persisted?.record.bytes === 0) this.scheduleSave();
  }

  /** The packages the next worker's variables need (after a lost worker: the last save's). */
  packagesFor(restart: boolean): readonly string[] {
    return restart ? (this.persisted?.savedPackages ?? []) : this.startPackages;
  }

  /** Whether the next worker gets variables: the next spare waits until they are in (pool.ts says why). */
  restores(restart: boolean): boolean {
    return this.incoming !== null || this.carried !== null || (restart && this.persisted !== null);
  }

  /**
   * While the next worker boots: a resume's files and variables once read (the files go to the
   * mirror) and, after a lost worker, a persisted sandbox's last save. Resolves whether this is a
   * resume or a fork (their steps are marked); rejects if a resume's read failed.
   */
  async gather(restart: boolean): Promise<boolean> {
    let saved: Awaited<ReturnType<PersistedSession["lastSaved"]>> = null;
    let incoming: Carried | undefined;
    try {
      [saved, incoming] = await Promise.all([
        restart && this.persisted ? this.persisted.lastSaved().catch(() => null) : null,
        this.incoming ?? undefined,
      ]);
    } finally {
      this.incoming = null;
    }
    if (incoming) this.carry(incoming);
    const resuming = this.carried !== null;
    if (saved) this.carried = { files: new Map(), state: saved.state, savedAt: saved.savedAt };
    return resuming;
  }

  /**
   * Posted first to a new worker, as soon as it takes requests (before the files and variables
   * are read): the packages the variables need and the pickler that restores them, which the
   * worker loads while the rest is read and sent (a spare that holds the packages lacks only it).
   */
  preload(engine: Engine, restart: boolean): void {
    if (!this.restores(restart)) return;
    const packages = [...this.packagesFor(restart), PICKLER];
    void engine.call({ type: "preload", packages }).catch(() => undefined);
  }

  /**
   * Posted last: the carried variables. Reports what came back: a resume's or fork's in
   * `resumeReport`, a restart's last save for the run (or the `restarted` event) it concerns.
   */
  async restore(engine: Engine): Promise<void> {
    if (!this.carried) return;
    const { files, state, savedAt } = this.carried;
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

  /**
   * What the last restart brought back from the last save: kept for the next call with `take`
   * (the next run's result), which clears it. `idleReason`: the worker was lost while idle.
   */
  restoredFromLastSave(take: boolean, idleReason?: string): StateRestored | null {
    const restored = this.restoredFromSave;
    if (take) this.restoredFromSave = null;
    return restored && idleReason !== undefined ? { ...restored, whileIdle: true, reason: idleReason } : restored;
  }

  /**
   * A run lost its worker (`ready`: the new one's start): a persisted sandbox's result says which
   * saved variables came back, so it waits for them; another's keeps `otherwise`.
   */
  async restartedWith(ready: Promise<void>, otherwise: StateRestored | null): Promise<StateRestored | null> {
    if (!this.persisted) return otherwise;
    return ready.then(
      () => this.restoredFromLastSave(true),
      () => null,
    );
  }

  /** A run ended: a persisted sandbox keeps it in its history and saves. */
  ran(code: string, result: ExecutionResult): void {
    if (!this.persisted) return;
    this.history.push({ code, result, at: Date.now() });
    this.persisted.markFiles(result.files.map((f) => f.path));
    this.persisted.markState();
    this.scheduleSave();
  }

  /** `writeFile` put a file: the next save has it. */
  wrote(path: string): void {
    this.persisted?.markFiles([path]);
    this.scheduleSave();
  }

  /** The sandbox is closing: a persisted one's saves finish first (a failed one stays failed). */
  async closing(save: boolean): Promise<void> {
    if (this.persisted && save) await this.flush().catch(() => undefined);
  }

  /** The sandbox is closed: another tab may open its session now. */
  closed(): void {
    this.persisted?.release();
  }

  /** A fork's session: a copy of the variables, every file, the history and app data (persisted if this one is). */
  async fork(id: string, settings: Settings, title: string | undefined, activity: Activity): Promise<SessionBinding> {
    const { state, files } = await this.sandbox().enqueue((engine) => capture(engine, "all"));
    const ttlDays = this.persisted?.record.ttlDays;
    const named = title ?? (this.title !== undefined ? `${this.title} (fork)` : undefined);
    const persisted =
      ttlDays === undefined
        ? undefined
        : new PersistedSession(newRecord(id, settings, ttlDays, named), await holdSessionLock(id), true, activity);
    return new SessionBinding({
      persisted,
      carried: { files, state },
      history: this.history,
      appData: structuredClone(this.data),
    });
  }

  private sandbox(): SandboxSide {
    if (!this.side) throw new Error("the session is not bound to a sandbox");
    return this.side;
  }

  /** What a new worker gets: the files (kept by the mirror from now on) and the variables. */
  private carry(carried: Carried): void {
    this.carried = carried;
    for (const [path, data] of carried.files) this.sandbox().mirror.set(path, data);
  }

  /** Save after the queued calls, off the run's path; one save waits at most. */
  private scheduleSave(): void {
    const persisted = this.persisted;
    const side = this.sandbox();
    if (!persisted || this.saveQueued || side.closed() || persisted.coveredByCapture()) return;
    const direct = persisted.recordOnly(this.history, this.data);
    if (!direct) this.saveQueued = true;
    const batch = direct
      ? Promise.resolve(direct)
      : side.enqueue((engine) => {
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
          if (side.closed()) return;
          this.saveError = error instanceof Error ? error : new Error(String(error));
          side.saveFailed(this.saveError);
        },
      );
  }
}
