// The saved sessions a page opens, deletes, renames and lists, by id: each holds the session's
// lock (lock.ts) while it reads or changes its records.
import type { Activity } from "../activity.js";
import { SandboxError } from "../errors.js";
import { mark } from "../marks.js";
import { titleOf, type SandboxInfo, type SandboxState, type Settings } from "../options.js";
import { prefetchPackages } from "../runtime-files.js";
import { startSnapshotFor } from "../start-snapshot.js";
import { SessionBinding } from "./binding.js";
import { forgetRecord, noteRecord, persistedInfos } from "./catalog.js";
import { holdSessionLock } from "./lock.js";
import { newRecord, PersistedSession, type Carried } from "./persisted.js";
import { deleteSession, readBlobs, readRecord, retitle } from "./store.js";

/** Thrown by `Sandbox.resume` for an id with nothing saved (`type` "session_not_found"). */
export class SessionNotFound extends SandboxError {
  override name = "SessionNotFound";
  constructor(message: string) {
    super("session_not_found", message);
  }
}

/** A new sandbox's session: persisted for `ttlDays` (holding its lock), or not when null. */
export async function newSession(
  id: string,
  settings: Settings,
  ttlDays: number | null,
  title: string | undefined,
  activity: Activity,
): Promise<SessionBinding> {
  if (ttlDays === null) return new SessionBinding();
  const persisted = new PersistedSession(
    newRecord(id, settings, ttlDays, title),
    await holdSessionLock(id),
    true,
    activity,
  );
  return new SessionBinding({ persisted });
}

/**
 * A saved session, to resume: its settings at once, and its files and variables read while the
 * new worker boots. Holds its lock (another tab's: SessionLocked); expired or absent: SessionNotFound.
 */
export async function savedSession(
  id: string,
  activity: Activity,
): Promise<{ settings: Settings; session: SessionBinding }> {
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
      (snapshot) => snapshot === "base" && prefetchPackages(record.packages, activity),
    );
    const carried = readBlobs(id).then(({ files, state }): Carried => {
      mark("resume:read");
      return { files, state: state && { data: state, skipped: record.skipped, packages: record.packages } };
    });
    const persisted = new PersistedSession(record, release, false, activity);
    const session = new SessionBinding({
      persisted,
      carried,
      history: record.history,
      appData: record.appData,
      packages: record.packages,
    });
    return { settings: record.settings, session };
  } catch (error) {
    release();
    throw error;
  }
}

/** Remove a saved session and everything it stored (no page of this tab may have it open). */
export async function deleteSaved(id: string): Promise<void> {
  const release = await holdSessionLock(id);
  try {
    await deleteSession(id);
    forgetRecord(id);
  } finally {
    release();
  }
}

/** Rename a saved session no page of this tab has open (another tab holding it: SessionLocked). */
export async function renameSaved(id: string, title: string): Promise<void> {
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

/** A sandbox open in this page, as `Sandbox.list()` sees it. */
export interface OpenSandbox {
  id: string;
  state: SandboxState;
  createdAt: number;
  lastUsedAt: number;
}

/** This page's sandboxes (each with its session), then the saved sessions no page of this tab has open. */
export function listed<T extends OpenSandbox>(open: T[], sessionOf: (sandbox: T) => SessionBinding): SandboxInfo[] {
  const live = open.map((sandbox): SandboxInfo => {
    const { id, state, createdAt, lastUsedAt } = sandbox;
    // Persisted from its creation on: before its first save commits, its record in memory says so.
    const saved = sessionOf(sandbox).info(id);
    const base = { id, state, createdAt, lastUsedAt };
    return saved ? { ...saved, ...base, persisted: true } : { ...base, persisted: false };
  });
  const ids = new Set(open.map(({ id }) => id));
  const stored = persistedInfos()
    .filter(({ id }) => !ids.has(id))
    .map((info): SandboxInfo => ({ ...info, state: "closed", persisted: true }));
  return [...live, ...stored];
}
