// Persisted sessions in the host page's IndexedDB (never the sandbox's opaque origin). One
// record per session and one blob per file plus one for the pickled variables; a save is one
// transaction over both stores, so a tab killed mid-save leaves the previous save whole.
import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { ExecutionResult, SkippedVariable } from "../../protocol/types.js";
import { SandboxError } from "../errors.js";
import type { Settings } from "../options.js";

const DB_NAME = "wasmbox-sessions";
export const DAY_MS = 86_400_000;

export interface HistoryEntry {
  code: string;
  result: ExecutionResult;
  at: number;
}

export interface SessionRecord {
  id: string;
  title?: string;
  createdAt: number;
  lastUsedAt: number;
  expiresAt: number;
  ttlDays: number;
  /** What the session holds in storage: its files, its variables and its history. */
  bytes: number;
  settings: Settings;
  history: HistoryEntry[];
  /** Path → size of each saved file. */
  files: Record<string, number>;
  stateBytes: number;
  /** Variables the last save could not pickle. */
  skipped: SkippedVariable[];
  /** Packages loaded when saved, loaded again before the variables are restored. */
  packages: string[];
  /** Whatever the embedding app keeps with the session (the web app keeps its transcript). */
  appData: unknown;
}

interface SessionDB extends DBSchema {
  sessions: { key: string; value: SessionRecord };
  blobs: { key: [string, string]; value: Uint8Array };
}

/** What one save changes: the record, the files written or removed, the variables. */
export interface SaveBatch {
  record: SessionRecord;
  put: Map<string, Uint8Array>;
  remove: string[];
  state: Uint8Array | null;
}

export interface StoredSession {
  record: SessionRecord;
  files: Map<string, Uint8Array>;
  state: Uint8Array | null;
}

/** Thrown when the browser refuses to store more (`type` "storage_full"); the previous save is intact. */
export class SessionStorageFull extends SandboxError {
  override name = "SessionStorageFull";
  constructor(message: string) {
    super("storage_full", message);
  }
}

const STATE = "state";
const fileKey = (path: string): string => `file:${path}`;
const blobRange = (id: string): IDBKeyRange => IDBKeyRange.bound([id, ""], [id, "\uffff"]);

let database: Promise<IDBPDatabase<SessionDB>> | null = null;

function db(): Promise<IDBPDatabase<SessionDB>> {
  database ??= openDB<SessionDB>(DB_NAME, 1, {
    upgrade(d) {
      d.createObjectStore("sessions", { keyPath: "id" });
      d.createObjectStore("blobs");
    },
  });
  return database;
}

const isQuota = (e: unknown): boolean =>
  typeof e === "object" && e !== null && (e as { name?: unknown }).name === "QuotaExceededError";

export async function writeSession({ record, put, remove, state }: SaveBatch): Promise<void> {
  const d = await db();
  const tx = d.transaction(["sessions", "blobs"], "readwrite");
  const blobs = tx.objectStore("blobs");
  try {
    const written = Promise.all([
      ...[...put].map(([path, data]) => blobs.put(data, [record.id, fileKey(path)])),
      ...remove.map((path) => blobs.delete([record.id, fileKey(path)])),
      ...(state ? [blobs.put(state, [record.id, STATE])] : []),
      tx.objectStore("sessions").put(record),
      tx.done,
    ]);
    // Ask for the commit in this task: a page unloaded right after still gets the save.
    (tx as unknown as { commit?: () => void }).commit?.();
    await written;
  } catch (error) {
    if (isQuota(error) || isQuota((error as { target?: { error?: unknown } })?.target?.error) || isQuota(tx.error)) {
      throw new SessionStorageFull(
        `the session could not be saved: the browser's storage quota is full (${record.bytes} bytes to store); the previous save is kept`,
      );
    }
    if (error instanceof SandboxError) throw error;
    const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new SandboxError("save_failed", `the session could not be saved (${cause}); the previous save is kept`);
  }
}

export async function readRecord(id: string): Promise<SessionRecord | null> {
  return (await (await db()).get("sessions", id)) ?? null;
}

/** A session's files and pickled variables: the bulk, read while the sandbox's worker starts. */
export async function readBlobs(id: string): Promise<Omit<StoredSession, "record">> {
  const tx = (await db()).transaction("blobs", "readonly");
  const files = new Map<string, Uint8Array>();
  let state: Uint8Array | null = null;
  let cursor = await tx.store.openCursor(blobRange(id));
  while (cursor) {
    const name = cursor.key[1];
    if (name === STATE) state = cursor.value;
    else if (name.startsWith("file:")) files.set(name.slice(5), cursor.value);
    cursor = await cursor.continue();
  }
  return { files, state };
}

/** The record and the pickled variables of the last committed save (no files). */
export async function readState(id: string): Promise<{ record: SessionRecord; state: Uint8Array } | null> {
  const d = await db();
  const tx = d.transaction(["sessions", "blobs"], "readonly");
  const [record, state] = await Promise.all([
    tx.objectStore("sessions").get(id),
    tx.objectStore("blobs").get([id, STATE]),
  ]);
  return record && state ? { record, state } : null;
}

/** Change a saved session's title; returns the record, or null when there is none. */
export async function retitle(id: string, title: string | undefined): Promise<SessionRecord | null> {
  const d = await db();
  const tx = d.transaction("sessions", "readwrite");
  const record = await tx.store.get(id);
  if (record) {
    record.title = title;
    record.bytes = sizeOf(record);
    await tx.store.put(record);
  }
  await tx.done;
  return record ?? null;
}

export async function listSessions(): Promise<SessionRecord[]> {
  return (await db()).getAll("sessions");
}

export async function deleteSession(id: string): Promise<void> {
  const d = await db();
  const tx = d.transaction(["sessions", "blobs"], "readwrite");
  await Promise.all([tx.objectStore("sessions").delete(id), tx.objectStore("blobs").delete(blobRange(id)), tx.done]);
}

/** The byte count a session's `bytes` reports: files, variables and the JSON of its record. */
export function sizeOf(record: SessionRecord): number {
  const files = Object.values(record.files).reduce((a, b) => a + b, 0);
  const json = JSON.stringify({ ...record, bytes: 0 }).length;
  return files + record.stateBytes + json;
}
