// The host page's side of runtime file delivery (see sandbox/runtime-fetch.ts): files come from
// the page's own origin, so its caches serve repeat visits (the decoded-file store first, then
// the HTTP cache), and each file is read once per page however many sandboxes boot. Bytes are
// counted as they arrive, for progress bars. Storing waits for the page's `Activity` (activity.ts),
// passed by the caller: nothing here knows of sandboxes.
import { BOOT_FILES, RUNTIME_FILE_NAME } from "../protocol/types.js";
import type { Activity } from "./activity.js";
import { inBackground, whenIdle } from "./background.js";
import { sha256Hex } from "./hash.js";
import { mark } from "./marks.js";
import { isStored, pruneStore, storedFile, storeFile } from "./runtime-store.js";
import { storedBytes } from "./store-reader.js";

export const RUNTIME_URL = new URL("../runtime/", import.meta.url).href;
const MANIFEST = "manifest.json";
/** A runtime file: a Blob when it comes from the store (read by whoever needs the bytes), else bytes. */
export type RuntimeData = ArrayBuffer | Blob;
const files = new Map<string, Promise<RuntimeData>>();
const textOf = async (data: RuntimeData): Promise<string> =>
  data instanceof Blob ? data.text() : new TextDecoder().decode(data);

export interface DownloadTotals {
  loadedBytes: number;
  totalBytes: number;
}
const totals: DownloadTotals = { loadedBytes: 0, totalBytes: 0 };
const listeners = new Set<(totals: DownloadTotals) => void>();

/** Follow the runtime downloads of this page; the listener hears the totals so far at once. */
export function watchDownloads(listener: (totals: DownloadTotals) => void): () => void {
  listeners.add(listener);
  listener({ ...totals });
  return () => void listeners.delete(listener);
}

function count(loaded: number, total: number): void {
  totals.loadedBytes += loaded;
  totals.totalBytes += total;
  for (const listener of listeners) listener({ ...totals });
}

interface ManifestEntry {
  sha256: string;
  size: number;
}
let manifest: Promise<Map<string, ManifestEntry>> | null = null;

/** The manifest's files (name → hash and size); empty when it cannot be read. Once per page. */
function manifestFiles(): Promise<Map<string, ManifestEntry>> {
  manifest ??= fileBytes(MANIFEST, null).then(
    async (data) => {
      const { files = {} } = JSON.parse(await textOf(data)) as {
        files?: Record<string, Partial<ManifestEntry>>;
      };
      const entries = new Map<string, ManifestEntry>();
      for (const [name, { sha256, size }] of Object.entries(files)) {
        if (typeof sha256 === "string" && typeof size === "number") entries.set(name, { sha256, size });
      }
      pruneStore(RUNTIME_URL, new Map(Array.from(entries, ([name, entry]) => [name, entry.sha256])));
      return entries;
    },
    () => {
      manifest = null; // like a file, a failed manifest is not remembered
      return new Map<string, ManifestEntry>();
    },
  );
  return manifest;
}

/** `activity`: the page's, which the store waits for; null for the manifest (never stored). */
async function download(name: string, activity: Activity | null): Promise<RuntimeData> {
  const entry = name === MANIFEST ? undefined : (await manifestFiles()).get(name);
  const stored = entry && (await storedFile(RUNTIME_URL, name, entry.sha256));
  if (stored && stored.size === entry.size) {
    mark(`stored ${name}`);
    count(stored.size, stored.size);
    return stored;
  }
  let bytes = await fetchCounted(name, entry?.size);
  mark(`fetched ${name}`);
  if (entry && !BOOT_FILES.includes(name) && (await sha256Hex(bytes)) !== entry.sha256) {
    // The HTTP cache can hold an earlier build's wheel under the same name (the name carries the
    // package's version, not the build's edits to it, and is served as immutable): fetch past it.
    bytes = await fetchCounted(name, entry.size, "reload");
    await checkPackage(name, bytes, entry.sha256);
  }
  // Hashing and storing tens of MB: not while a sandbox is starting or running its first cell.
  if (entry && activity) inBackground(activity, () => void storeFile(RUNTIME_URL, name, entry.sha256, bytes));
  return bytes;
}

/**
 * A package wheel must be the manifest's: Pyodide's own integrity check cannot run in the frame,
 * which has no network. Boot files are not hashed here: it would hold up every cold start, and
 * a damaged one fails the boot anyway; none is stored unchecked.
 */
async function checkPackage(name: string, bytes: ArrayBuffer, sha256: string): Promise<void> {
  const actual = await sha256Hex(bytes);
  if (actual !== sha256) {
    throw new Error(`${name} is not the runtime's file (sha256 ${actual}, the manifest says ${sha256}): refused`);
  }
}

/** Fetch `name`, reporting progress against `expected` bytes (the uncompressed size, if known). */
async function fetchCounted(name: string, expected?: number, cache?: RequestCache): Promise<ArrayBuffer> {
  const response = await fetch(RUNTIME_URL + name, cache ? { cache } : undefined);
  if (!response.ok || !response.body) throw new Error(`${name}: ${response.status}`);
  expected ??= Number(response.headers.get("Content-Length")) || 0;
  count(0, expected);
  const chunks: Uint8Array[] = [];
  let received = 0;
  const reader = response.body.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    chunks.push(part.value);
    received += part.value.byteLength;
    count(part.value.byteLength, 0);
  }
  count(0, received - expected); // the guess is corrected once the real size is known
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes.buffer;
}

function fileBytes(name: string, activity: Activity | null): Promise<RuntimeData> {
  let bytes = files.get(name);
  if (!bytes) {
    bytes = download(name, activity);
    bytes.catch(() => files.delete(name)); // a failure is not remembered
    files.set(name, bytes);
  }
  return bytes;
}

/**
 * Start reading these boot files (all by default) from the store, the HTTP cache or the
 * network, while the frame and its worker are still starting.
 */
export function prefetchBootFiles(activity: Activity, names: readonly string[] = BOOT_FILES): void {
  for (const name of names) fileBytes(name, activity).catch(() => undefined);
}

/**
 * Start reading the wheels of these runtime packages (a resume's saved packages), so the worker's
 * requests for them, once it has booted, are answered at once. Unknown names are skipped.
 */
export function prefetchPackages(names: string[], activity: Activity): void {
  fileBytes(MANIFEST, null)
    .then(async (data) => {
      const { packages = {} } = JSON.parse(await textOf(data)) as {
        packages?: Record<string, { file?: unknown }>;
      };
      for (const name of names) {
        const file = packages[name]?.file;
        if (typeof file === "string" && RUNTIME_FILE_NAME.test(file)) fileBytes(file, activity).catch(() => undefined);
      }
    })
    .catch(() => undefined);
}

/** A package or plot-ready snapshot's files and the packages it holds, from the manifest. */
export interface PackageSnapshotEntry {
  file: string;
  record: string;
  bundle: string;
  packages: string[];
}
/** The manifest's key for each snapshot with packages. */
type SnapshotKey = "packageSnapshot" | "plotSnapshot";
const snapshotEntries = new Map<SnapshotKey, Promise<PackageSnapshotEntry | null>>();

/** The manifest's entry for the package snapshot (null: none built). */
export function packageSnapshotEntry(): Promise<PackageSnapshotEntry | null> {
  return snapshotEntry("packageSnapshot");
}

/** The manifest's entry for the plot-ready snapshot (null: none built). */
export function plotSnapshotEntry(): Promise<PackageSnapshotEntry | null> {
  return snapshotEntry("plotSnapshot");
}

function snapshotEntry(key: SnapshotKey): Promise<PackageSnapshotEntry | null> {
  let entry = snapshotEntries.get(key);
  if (!entry) {
    entry = fileBytes(MANIFEST, null).then(
      async (data) => checkedEntry((JSON.parse(await textOf(data)) as Record<string, unknown>)[key]),
      () => (snapshotEntries.delete(key), null),
    );
    snapshotEntries.set(key, entry);
  }
  return entry;
}

function checkedEntry(value: unknown): PackageSnapshotEntry | null {
  const entry = value as Partial<PackageSnapshotEntry> | null | undefined;
  const named = (file: unknown): file is string => typeof file === "string" && RUNTIME_FILE_NAME.test(file);
  if (!entry || !named(entry.file) || !named(entry.record) || !named(entry.bundle) || !Array.isArray(entry.packages))
    return null;
  const packages = entry.packages.filter((p) => typeof p === "string");
  return { file: entry.file, record: entry.record, bundle: entry.bundle, packages };
}

/** Start reading a snapshot's files, its record and its files bundle (a worker booting from it). */
export function prefetchPackageSnapshot(activity: Activity, entry = packageSnapshotEntry()): void {
  void entry.then((found) => {
    if (!found) return;
    for (const name of [found.file, found.record, found.bundle]) fileBytes(name, activity).catch(() => undefined);
  });
}

/** Whether the page's store holds every one of these runtime files as the manifest names them. */
export async function allStored(names: readonly string[]): Promise<boolean> {
  const entries = await manifestFiles();
  for (const name of names) {
    const entry = entries.get(name);
    if (!entry || !(await isStored(RUNTIME_URL, name, entry.sha256))) return false;
  }
  return true;
}

/** Whether the origin's storage has room for `bytes` of cache and four times more besides: a
 * runtime file kept ahead of need must never take the room a session's own save needs. */
async function roomFor(bytes: number): Promise<boolean> {
  try {
    const { quota = 0, usage = 0 } = (await navigator.storage?.estimate?.()) ?? {};
    return quota - usage > 5 * bytes;
  } catch {
    return false;
  }
}

/**
 * Keep these runtime files in the page's store for a later visit: each one neither stored nor
 * read by this page yet is fetched and stored, one at a time, each once no sandbox is starting
 * or running code. Unlike a file a sandbox reads, its bytes are not kept in the page.
 */
export async function keepForLaterVisits(names: readonly string[], activity: Activity): Promise<void> {
  const entries = await manifestFiles();
  for (const name of names) {
    const entry = entries.get(name);
    if (!entry || files.has(name) || (await isStored(RUNTIME_URL, name, entry.sha256))) continue;
    await whenIdle(activity);
    if (!(await roomFor(entry.size))) return;
    const response = await fetch(RUNTIME_URL + name);
    if (!response.ok) throw new Error(`${name}: ${response.status}`);
    await storeFile(RUNTIME_URL, name, entry.sha256, await response.arrayBuffer());
  }
}

/**
 * The runtime file `name`: the stored Blob (immutable, so shared), or a copy of its bytes (a copy,
 * because the caller transfers it away). `whole`: the reader wants all of it at once, so a stored
 * file comes as bytes where this engine gets bytes to the sandbox faster (store-reader.ts); a
 * file read by parts stays a Blob.
 */
export async function runtimeFile(name: string, activity: Activity, whole = false): Promise<Uint8Array | Blob> {
  if (!RUNTIME_FILE_NAME.test(name)) throw new Error(`not a runtime file name: ${JSON.stringify(name)}`);
  const data = await fileBytes(name, activity);
  if (!(data instanceof Blob)) return new Uint8Array(data.slice(0));
  const bytes = whole ? await storedBytes(data) : null;
  if (bytes) mark(`read stored ${name}`);
  return bytes ?? data;
}
