// One persisted sandbox's saving: what changed since the last save, captured from the worker on
// the sandbox's queue, then written to IndexedDB off that queue, one save after another.
import type { FileInfo, SavedState, SkippedVariable, WorkerReply } from "../../protocol/types.js";
import type { Activity } from "../activity.js";
import type { Engine } from "../engine.js";
import { SandboxError } from "../errors.js";
import { readFiles } from "../mirror.js";
import type { Settings } from "../options.js";
import { keepStartSnapshotFor } from "../start-snapshot.js";
import { noteRecord } from "./catalog.js";
import {
  DAY_MS,
  readState,
  sizeOf,
  writeSession,
  type HistoryEntry,
  type SaveBatch,
  type SessionRecord,
} from "./store.js";

/** What a sandbox carries into a new engine: its files and its pickled variables. */
export interface Carried {
  files: Map<string, Uint8Array>;
  state: SavedState | null;
  /** Set when a restart brings back the last save (not a resume or a fork). */
  savedAt?: number;
}

/** What came back when a sandbox was resumed or forked. */
export interface ResumeReport {
  files: string[];
  restored: string[];
  /** Variables that could not be saved or restored, each with why; their code must run again. */
  notRestored: SkippedVariable[];
  runs: number;
}

async function ask<T extends WorkerReply["type"]>(engine: Engine, request: Parameters<Engine["call"]>[0], type: T) {
  const reply = await engine.call(request);
  if (reply.type === type) return reply as Extract<WorkerReply, { type: T }>;
  if (reply.type === "failed")
    throw new SandboxError("request_failed", reply.error.message, {
      errorName: reply.error.name,
      traceback: reply.error.traceback,
    });
  throw new SandboxError("protocol", `the sandbox answered ${reply.type} where ${type} was expected`, {
    field: "type",
  });
}

/** The engine's variables and the files named (all of them with "all"), plus the file list. */
export async function capture(
  engine: Engine,
  paths: Set<string> | "all",
): Promise<{
  state: SavedState;
  listed: FileInfo[];
  files: Map<string, Uint8Array>;
}>;
/** Without `withState`, no variables (a save after a rename or new app data). */
export async function capture(
  engine: Engine,
  paths: Set<string> | "all",
  withState: boolean,
): Promise<{
  state: SavedState | null;
  listed: FileInfo[];
  files: Map<string, Uint8Array>;
}>;
export async function capture(
  engine: Engine,
  paths: Set<string> | "all",
  withState = true,
): Promise<{
  state: SavedState | null;
  listed: FileInfo[];
  files: Map<string, Uint8Array>;
}> {
  const state = withState ? (await ask(engine, { type: "save-state" }, "state")).state : null;
  const { files: listed } = await ask(engine, { type: "list-files" }, "files");
  const wanted = listed.filter(({ path }) => paths === "all" || paths.has(path));
  const batched = await readFiles(engine, wanted);
  const files = new Map<string, Uint8Array>();
  // One the batch left out is asked for alone: its refusal (over the cap, gone) fails the save.
  for (const { path } of wanted) {
    files.set(path, batched.get(path) ?? (await ask(engine, { type: "read-file", path }, "file")).data);
  }
  return { state, listed, files };
}

export function newRecord(id: string, settings: Settings, ttlDays: number, title?: string): SessionRecord {
  const now = Date.now();
  return {
    id,
    title,
    createdAt: now,
    lastUsedAt: now,
    expiresAt: now + ttlDays * DAY_MS,
    ttlDays,
    bytes: 0,
    settings,
    history: [],
    files: {},
    stateBytes: 0,
    skipped: [],
    packages: [],
    appData: null,
  };
}

export class PersistedSession {
  private readonly dirty = new Set<string>();
  private everything: boolean;
  /** Whether a run may have changed the variables since the last save. */
  private stateChanged = true;
  /** What the last captured variables were: a save without them repeats it (its blob stays). */
  private stateMeta: Pick<SessionRecord, "stateBytes" | "skipped" | "packages">;
  private writing: Promise<void> = Promise.resolve();
  /** The files of the latest capture, written or being written. */
  private files: Record<string, number>;
  /** Captures under way on the sandbox's queue. */
  private capturing = 0;

  constructor(
    readonly record: SessionRecord,
    readonly release: () => void,
    /** A new session (or a fork) saves all its files the first time. */
    fresh: boolean,
    /** The page's: a save's package snapshot is kept for a later visit once it is idle. */
    private readonly activity: Activity,
  ) {
    this.everything = fresh;
    const { stateBytes, skipped, packages } = record;
    this.stateMeta = { stateBytes, skipped, packages };
    this.files = record.files;
  }

  /** The packages the last captured variables need (a restart picks its worker's snapshot by them). */
  get savedPackages(): readonly string[] {
    return this.stateMeta.packages;
  }

  markFiles(paths: Iterable<string>): void {
    for (const path of paths) this.dirty.add(path);
  }

  /** A run happened: the next save pickles the variables again. */
  markState(): void {
    this.stateChanged = true;
  }

  /**
   * A save that needs nothing from the worker (a rename, new app data), or null when a file or
   * the variables changed or a capture is under way. Taken at once, so the app's conversation is
   * in storage moments after it is shown, not after a worker round trip behind the queue.
   */
  recordOnly(history: HistoryEntry[], appData: unknown): SaveBatch | null {
    if (!this.clean() || this.capturing > 0) return null;
    return { record: this.recordOf(this.files, history, appData), put: new Map(), remove: [], state: null };
  }

  /** Whether the capture under way will save the history and app data as they are when it ends. */
  coveredByCapture(): boolean {
    return this.clean() && this.capturing > 0;
  }

  private clean(): boolean {
    return !this.everything && !this.stateChanged && this.dirty.size === 0;
  }

  /** On the sandbox's queue: what to save now; the history and app data are read once captured. */
  async snapshot(engine: Engine, current: () => { history: HistoryEntry[]; appData: unknown }): Promise<SaveBatch> {
    const paths = this.everything ? "all" : new Set(this.dirty);
    const withState = this.everything || this.stateChanged;
    this.dirty.clear();
    this.everything = false;
    this.stateChanged = false;
    this.capturing += 1;
    try {
      const { state, listed, files } = await capture(engine, paths, withState);
      if (state)
        this.stateMeta = {
          stateBytes: state.data.byteLength,
          skipped: state.skipped,
          packages: state.packages,
        };
      const previous = this.record.files;
      this.files = Object.fromEntries(listed.map((f) => [f.path, f.size]));
      const { history, appData } = current();
      const record = this.recordOf(this.files, history, appData);
      const remove = Object.keys(previous).filter((path) => !(path in record.files));
      return { record, put: files, remove, state: state?.data ?? null };
    } catch (error) {
      // Nothing captured (e.g. a listing refused over its cap): the next save takes all of it again.
      if (paths === "all") this.everything = true;
      else this.markFiles(paths);
      if (withState) this.stateChanged = true;
      throw error;
    } finally {
      this.capturing -= 1;
    }
  }

  private recordOf(files: Record<string, number>, history: HistoryEntry[], appData: unknown): SessionRecord {
    const now = Date.now();
    const record: SessionRecord = {
      ...this.record,
      lastUsedAt: now,
      expiresAt: now + this.record.ttlDays * DAY_MS,
      history: [...history],
      files,
      ...this.stateMeta,
      appData,
    };
    record.bytes = sizeOf(record);
    return record;
  }

  /** Write after the saves before; the record is updated only once the write is committed. */
  write(batch: SaveBatch): Promise<void> {
    const next = this.writing
      .then(
        () => true,
        () => false,
      )
      .then(async (previousWritten) => {
        // Its record names variables an unwritten save held: fail it too; the next save pickles again.
        if (!previousWritten && !batch.state)
          throw new SandboxError("save_failed", "an earlier save failed; the next save writes the variables again");
        await writeSession(batch);
        Object.assign(this.record, batch.record);
        noteRecord(batch.record);
        if (batch.state) void keepStartSnapshotFor(batch.record.packages, this.activity);
      });
    this.writing = next;
    return next;
  }

  /** The variables of the last committed save (after the writes under way), or null if none. */
  async lastSaved(): Promise<{ state: SavedState; savedAt: number } | null> {
    await this.writing.catch(() => undefined);
    const saved = await readState(this.record.id);
    if (!saved) return null;
    const { record, state } = saved;
    return {
      state: { data: state, skipped: record.skipped, packages: record.packages },
      savedAt: record.lastUsedAt,
    };
  }

  /** A failed save's files are saved again by the next one. */
  retryFiles(batch: SaveBatch): void {
    this.markFiles(batch.put.keys());
    this.stateChanged = true;
  }
}
