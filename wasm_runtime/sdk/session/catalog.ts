// The persisted sessions this page knows of, read once on first use (after removing the expired
// ones; registry.ts) and kept current by this page's saves, so `Sandbox.list()` can answer
// synchronously.
import { deleteSession, listSessions, type SessionRecord } from "./store.js";
import { holdSessionLock } from "./lock.js";

export interface PersistedInfo {
  id: string;
  title?: string;
  createdAt: number;
  lastUsedAt: number;
  expiresAt: number;
  bytes: number;
  /** How many runs its history holds. */
  runs: number;
}

const known = new Map<string, PersistedInfo>();

/**
 * A copy of the catalog in localStorage, which a page can read synchronously: `Sandbox.list()`
 * right after the SDK is imported names the saved sessions before IndexedDB has been read (the
 * read then removes the expired ones and those deleted meanwhile). Best effort: without
 * localStorage the list waits for that read, as before.
 */
const MIRROR_KEY = "wasmbox:saved-sessions";
let mirrorRead = false;
const fromMirror = new Set<string>();

const isInfo = (value: unknown): value is PersistedInfo => {
  const info = value as Partial<PersistedInfo> | null;
  return (
    typeof info?.id === "string" &&
    typeof info.createdAt === "number" &&
    typeof info.lastUsedAt === "number" &&
    typeof info.expiresAt === "number" &&
    typeof info.bytes === "number" &&
    typeof info.runs === "number"
  );
};

function readMirror(now = Date.now()): void {
  if (mirrorRead) return;
  mirrorRead = true;
  try {
    const stored: unknown = JSON.parse(globalThis.localStorage?.getItem(MIRROR_KEY) ?? "[]");
    if (!Array.isArray(stored)) return;
    for (const info of stored) {
      if (!isInfo(info) || info.expiresAt <= now || known.has(info.id)) continue;
      known.set(info.id, info);
      fromMirror.add(info.id);
    }
  } catch {
    // no localStorage (an opaque origin, storage disabled) or a damaged copy: the read fills in
  }
}

function writeMirror(): void {
  try {
    globalThis.localStorage?.setItem(MIRROR_KEY, JSON.stringify([...known.values()]));
  } catch {
    // quota or no storage: the copy is only a head start for the next page's first list
  }
}

/** What `Sandbox.list()` says of a session record (a saved one, or an open sandbox's not saved yet). */
export const infoOf = ({
  id,
  title,
  createdAt,
  lastUsedAt,
  expiresAt,
  bytes,
  history,
}: SessionRecord): PersistedInfo => ({
  id,
  ...(title !== undefined ? { title } : {}),
  createdAt,
  lastUsedAt,
  expiresAt,
  bytes,
  runs: history.length,
});

export function noteRecord(record: SessionRecord): void {
  readMirror();
  known.set(record.id, infoOf(record));
  fromMirror.delete(record.id);
  writeMirror();
}

export function forgetRecord(id: string): void {
  readMirror();
  known.delete(id);
  fromMirror.delete(id);
  writeMirror();
}

export function persistedInfos(): PersistedInfo[] {
  readMirror();
  return [...known.values()];
}

export function persistedInfo(id: string): PersistedInfo | undefined {
  readMirror();
  return known.get(id);
}

/** Remove expired sessions no tab has open, and list the rest. Never throws: no storage, no list. */
export async function loadCatalog(now = Date.now()): Promise<void> {
  if (typeof indexedDB === "undefined") return;
  readMirror(now);
  try {
    const stored = await listSessions();
    for (const record of stored) {
      // Saved by this page meanwhile: that note is newer (a mirrored entry is not).
      if (known.has(record.id) && !fromMirror.has(record.id)) continue;
      if (record.expiresAt > now) {
        noteRecord(record);
        continue;
      }
      const release = await holdSessionLock(record.id).catch(() => null);
      if (!release) {
        noteRecord(record); // open in another tab: that tab keeps it alive
        continue;
      }
      await deleteSession(record.id).finally(release);
      forgetRecord(record.id);
    }
    // Mirrored but no longer stored: deleted by another tab, or the site's data was cleared.
    const ids = new Set(stored.map(({ id }) => id));
    for (const id of [...fromMirror]) if (!ids.has(id)) forgetRecord(id);
  } catch {
    // storage unavailable (private mode, disabled): persisted sessions then fail when used
  }
}
