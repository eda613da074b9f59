// Runtime files kept decoded by the host page, keyed by their sha256 in the manifest: on a repeat
// visit the HTTP cache would decode brotli again, and reading decoded bytes back is several times
// faster (make bench-sandbox shows the repeat visit).
// An entry is stored only after its bytes matched the manifest's hash, so a bad download never
// sticks; entries whose hash the current manifest no longer names are deleted.
// Where it can, the page keeps them in its origin-private file system (runtime-folder.ts): a file
// there is a plain file, whose Blob a worker reads at disk speed, where Firefox's CacheStorage
// hands out a Blob only after copying the whole (compressed) body. Elsewhere, and for entries an
// older version kept, CacheStorage. Both are origin storage the opaque sandbox frame cannot reach;
// where both are missing (an insecure context) or fail (quota, private mode), files come from the
// network as before.

import { sha256Hex } from "./hash.js";
import { mark } from "./marks.js";
import { runtimeFolder } from "./runtime-folder.js";

const STORE = "wasmbox-runtime";
// An answer takes milliseconds; a lookup still pending after this is abandoned.
const LOOKUP_TIMEOUT_MS = 5_000;

const keyOf = (base: string, name: string, sha256: string): string =>
  `${base}${encodeURIComponent(name)}?sha256=${sha256}`;

function open(): Promise<Cache> | null {
  try {
    return typeof caches === "undefined" ? null : caches.open(STORE);
  } catch {
    return null; // a SecurityError where storage is disabled
  }
}

async function cachedFile(base: string, name: string, sha256: string): Promise<Blob | null> {
  const hit = await (await open())?.match(keyOf(base, name, sha256));
  return hit ? await hit.blob() : null;
}

/**
 * The stored file `name` at this hash, or null. A Blob, not bytes: its data stays on disk until a
 * reader needs it, and a Blob crosses to the sandbox by reference, uncopied.
 */
export async function storedFile(base: string, name: string, sha256: string): Promise<Blob | null> {
  const lookup = (async () => {
    const kept = await (await runtimeFolder())?.file(base, name, sha256).catch(() => null);
    return kept ?? (await cachedFile(base, name, sha256));
  })();
  // A store that does not answer is a miss, not a stalled start: the file comes from the network.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), LOOKUP_TIMEOUT_MS)));
  try {
    return await Promise.race([lookup, late]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the file `name` at this hash is stored (its bytes are not read). */
export async function isStored(base: string, name: string, sha256: string): Promise<boolean> {
  try {
    if (await (await runtimeFolder())?.has(base, name, sha256).catch(() => false)) return true;
    return (await (await open())?.match(keyOf(base, name, sha256))) !== undefined;
  } catch {
    return false;
  }
}

/** Stores under way, by key: a page stores a file once even when two of its readers fetched it. */
const storing = new Map<string, Promise<void>>();

/** Keep `bytes` for later visits, if they are what the manifest says; never rejects. */
export function storeFile(base: string, name: string, sha256: string, bytes: ArrayBuffer): Promise<void> {
  const key = keyOf(base, name, sha256);
  let stored = storing.get(key);
  if (!stored) {
    stored = store(base, name, sha256, bytes).finally(() => storing.delete(key));
    storing.set(key, stored);
  }
  return stored;
}

async function store(base: string, name: string, sha256: string, bytes: ArrayBuffer): Promise<void> {
  try {
    if ((await sha256Hex(bytes)) !== sha256) return mark(`not stored ${name}: not the manifest's bytes`);
    const folder = await runtimeFolder();
    const kept = await folder?.put(base, name, sha256, bytes).then(
      () => true,
      () => false,
    );
    if (kept) return;
    await (await open())?.put(keyOf(base, name, sha256), new Response(bytes));
  } catch {
    // quota, private mode: the file comes from the network next time, as before
  }
}

/** Delete the entries of `base` that are not among `current` (name → sha256). In the background. */
export function pruneStore(base: string, current: Map<string, string>): void {
  void runtimeFolder()
    .then((folder) => folder?.prune(base, current))
    .catch(() => undefined);
  void (async () => {
    const store = await open();
    if (!store) return;
    const keep = new Set(Array.from(current, ([name, sha256]) => keyOf(base, name, sha256)));
    for (const request of await store.keys()) {
      // Another runtime's files (another base URL) are not ours to judge.
      if (request.url.startsWith(base) && !keep.has(request.url)) await store.delete(request);
    }
  })().catch(() => undefined);
}
