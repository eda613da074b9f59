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
  known.set(record.id, infoOf(record));
}

export function forgetRecord(id: string): void {
  known.delete(id);
}

export function persistedInfos(): PersistedInfo[] {
  return [...known.values()];
}

export function persistedInfo(id: string): PersistedInfo | undefined {
  return known.get(id);
}

/** Remove expired sessions no tab has open, and list the rest. Never throws: no storage, no list. */
export async function loadCatalog(now = Date.now()): Promise<void> {
  if (typeof indexedDB === "undefined") return;
  try {
    for (const record of await listSessions()) {
      if (known.has(record.id)) continue; // saved by this page meanwhile: that note is newer
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
    }
  } catch {
    // storage unavailable (private mode, disabled): persisted sessions then fail when used
  }
}
