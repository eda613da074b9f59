// Runtime files kept decoded in the host page's CacheStorage, keyed by their sha256 in the
// manifest: on a repeat visit the HTTP cache would decode brotli again, and reading decoded bytes
// back is several times faster (make bench-sandbox shows the repeat visit).
// An entry is stored only after its bytes matched the manifest's hash, so a bad download never
// sticks; entries whose hash the current manifest no longer names are deleted.
// CacheStorage is origin storage the opaque sandbox frame cannot reach; where it is missing
// (an insecure context) or fails (quota, private mode), files come from the network as before.

import { sha256Hex } from "./hash.js";
import { mark } from "./marks.js";

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

/**
 * The stored file `name` at this hash, or null. A Blob, not bytes: its data stays in the browser's
 * cache until a reader needs it, and a Blob crosses to the sandbox by reference, uncopied.
 */
export async function storedFile(base: string, name: string, sha256: string): Promise<Blob | null> {
  const lookup = (async () => {
    const hit = await (await open())?.match(keyOf(base, name, sha256));
    return hit ? await hit.blob() : null;
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
    return (await (await open())?.match(keyOf(base, name, sha256))) !== undefined;
  } catch {
    return false;
  }
}

/** Keep `bytes` for later visits, if they are what the manifest says; never rejects. */
export async function storeFile(base: string, name: string, sha256: string, bytes: ArrayBuffer): Promise<void> {
  try {
    const store = await open();
    if (!store) return;
    if ((await sha256Hex(bytes)) !== sha256) return mark(`not stored ${name}: not the manifest's bytes`);
    await store.put(keyOf(base, name, sha256), new Response(bytes));
  } catch {
    // quota, private mode: the file comes from the network next time, as before
  }
}

/** Delete the entries of `base` that are not among `current` (name → sha256). In the background. */
export function pruneStore(base: string, current: Map<string, string>): void {
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
