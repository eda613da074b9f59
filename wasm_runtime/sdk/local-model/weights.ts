// The model's weights: from a URL of the page's origin (or any the page may fetch) or from a file
// the user picked, checked against a sha256 when one is given, and kept in the page's store
// (CacheStorage) so later visits, offline ones too, load them without the network.
import { createSHA256, type IHasher } from "hash-wasm";
import { LocalModelError } from "./errors.js";

export const STORE = "wasmbox-models-v1";
/** Store entries of picked files live under this path of the page's origin (never fetched). */
export const FILE_KEY_PATH = "/.wasmbox-models/";
const HASH_HEADER = "X-Wasmbox-Sha256";
// A downloaded file's digest is only known once it is stored, so it is kept in an entry of its own.
const DIGEST_PARAM = "wasmbox-sha256";
// `model-00001-of-00003.gguf`: the first shard of a split model names the others.
const SHARD = /-(\d{5})-of-(\d{5})\.gguf$/;

export type WeightsProgress =
  { phase: "download"; loaded: number; total: number } | { phase: "verify" } | { phase: "store" };

export interface WeightsOptions {
  /** One hex digest per file (one for an unsplit model). */
  sha256: string[] | null;
  signal?: AbortSignal | undefined;
  onProgress?: ((event: WeightsProgress) => void) | undefined;
}

export interface Weights {
  files: Blob[];
  /** The store's key of the first file: `localModel({ url })` with it loads the same model offline. */
  key: string;
  fromStore: boolean;
  bytes: number;
}

/** Every shard's URL from the first one's (or the URL alone). */
export function shardUrls(url: string): string[] {
  const match = SHARD.exec(url);
  if (!match) return [url];
  const count = Number(match[2]);
  const stem = url.slice(0, match.index);
  return Array.from({ length: count }, (_, i) => `${stem}-${String(i + 1).padStart(5, "0")}-of-${match[2]}.gguf`);
}

async function openStore(): Promise<Cache | null> {
  // CacheStorage needs a secure context; elsewhere the weights are fetched each visit.
  if (typeof caches === "undefined") return null;
  try {
    return await caches.open(STORE);
  } catch {
    return null;
  }
}

/** The store's entry for `key`'s verified digest. */
function digestKey(key: string): string {
  const url = new URL(key);
  url.searchParams.append(DIGEST_PARAM, "");
  return url.href;
}

// Incremental: a model of gigabytes is never one buffer in memory (a Blob that large read whole
// fails in Chromium with NotReadableError).
async function hashOf(blob: Blob, onProgress: WeightsOptions["onProgress"]): Promise<string> {
  onProgress?.({ phase: "verify" });
  const hasher = await createSHA256();
  const reader = blob.stream().getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return hasher.digest("hex");
    hasher.update(value);
  }
}

function checkHash(name: string, expected: string, actual: string): void {
  if (expected.toLowerCase() !== actual)
    throw new LocalModelError(
      "sha256-mismatch",
      `${name}: sha256 is ${actual}, expected ${expected.toLowerCase()}; the file was refused`,
      { expected: expected.toLowerCase(), actual },
    );
}

async function fetchOk(url: string, signal: AbortSignal | undefined): Promise<Response & { body: ReadableStream }> {
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    signal?.throwIfAborted();
    throw new LocalModelError("download", `could not fetch ${url}: ${error instanceof Error ? error.message : error}`);
  }
  if (!response.ok || !response.body) throw new LocalModelError("download", `${url}: HTTP ${response.status}`);
  return response as Response & { body: ReadableStream };
}

/** `response`'s body as it arrives, hashed (when a digest is asked for) and counted on the way. */
function watched(
  response: Response & { body: ReadableStream },
  hasher: IHasher | null,
  progress: (loaded: number, total: number) => void,
): ReadableStream<Uint8Array> {
  const total = Number(response.headers.get("Content-Length")) || 0;
  let loaded = 0;
  return response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hasher?.update(chunk);
        loaded += chunk.byteLength;
        progress(loaded, total);
        controller.enqueue(chunk);
      },
    }),
  );
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Blob> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return new Blob(chunks as BlobPart[]);
    chunks.push(value);
  }
}

/**
 * The file at `url`, written to the store as it arrives (a disk-backed Blob, never the whole file
 * in memory) and checked against `expected` on the way; refused, and not kept, when it differs.
 * Without a store, or when the store is full, the file is held in memory for this visit.
 */
async function download(
  store: Cache | null,
  url: string,
  expected: string | undefined,
  options: WeightsOptions,
  progress: (loaded: number, total: number) => void,
): Promise<Blob> {
  const name = url.split("/").pop() ?? url;
  const hasher = expected ? await createSHA256() : null;
  const verify = (): void => {
    if (!hasher || !expected) return;
    options.onProgress?.({ phase: "verify" });
    checkHash(name, expected, hasher.digest("hex"));
  };
  const response = await fetchOk(url, options.signal);
  const body = watched(response, hasher, progress);
  if (store) {
    const headers = { "Content-Type": "application/octet-stream" };
    try {
      await store.put(url, new Response(body, { headers }));
    } catch (error) {
      options.signal?.throwIfAborted();
      // A full store: this visit downloads again into memory, the next one tries the store again.
      if (error instanceof DOMException && error.name === "QuotaExceededError")
        return download(null, url, expected, options, progress);
      throw new LocalModelError(
        "download",
        `could not download ${url}: ${error instanceof Error ? error.message : error}`,
      );
    }
    try {
      verify();
    } catch (error) {
      await store.delete(url);
      throw error;
    }
    if (expected) await store.put(digestKey(url), new Response(expected.toLowerCase()));
    options.onProgress?.({ phase: "store" });
    const stored = await store.match(url);
    // The body went into the store: an entry already gone means fetching it again.
    return stored ? stored.blob() : download(null, url, expected, options, progress);
  }
  const blob = await collect(body);
  verify();
  return blob;
}

/** Put a picked file in the store and read it back from there (a disk-backed Blob, not bytes in memory). */
async function keep(store: Cache | null, key: string, blob: Blob, sha256: string | null): Promise<Blob> {
  if (!store) return blob;
  const headers: Record<string, string> = {
    "Content-Type": "application/octet-stream",
    "Content-Length": String(blob.size),
  };
  if (sha256) headers[HASH_HEADER] = sha256;
  try {
    await store.put(key, new Response(blob, { headers }));
    const stored = await store.match(key);
    return stored ? await stored.blob() : blob;
  } catch {
    return blob; // a full store: this visit still works, the next one downloads again
  }
}

/** A stored file, if there is one whose hash is the one asked for (unknown hashes are checked). */
async function fromStore(
  store: Cache | null,
  key: string,
  sha256: string | undefined,
  options: WeightsOptions,
): Promise<Blob | null> {
  const response = await store?.match(key);
  if (!store || !response) return null;
  const stored = response.headers.get(HASH_HEADER) ?? (await (await store.match(digestKey(key)))?.text()) ?? null;
  const blob = await response.blob();
  if (!sha256 || stored === sha256.toLowerCase()) return blob;
  if (stored === null && (await hashOf(blob, options.onProgress)) === sha256.toLowerCase()) return blob;
  await forget(store, key); // another version of the file: fetch the one asked for
  return null;
}

async function forget(store: Cache, key: string): Promise<boolean> {
  const [file] = await Promise.all([store.delete(key), store.delete(digestKey(key))]);
  return file;
}

/** The weights at `url` (every shard of a split model), from the store when they are there. */
export async function weightsFromUrl(url: string, options: WeightsOptions): Promise<Weights> {
  const urls = shardUrls(new URL(url, location.href).href);
  if (options.sha256 && options.sha256.length !== urls.length)
    throw new TypeError(`sha256 needs one digest per file: ${urls.length} files, ${options.sha256.length} digests`);
  const store = await openStore();
  const files: Blob[] = [];
  let stored = 0;
  const loaded = new Array<number>(urls.length).fill(0);
  const totals = new Array<number>(urls.length).fill(0);
  for (const [i, shard] of urls.entries()) {
    const expected = options.sha256?.[i];
    const hit = await fromStore(store, shard, expected, options);
    if (hit) {
      files.push(hit);
      stored += 1;
      continue;
    }
    files.push(
      await download(store, shard, expected, options, (n, total) => {
        loaded[i] = n;
        totals[i] = total || n;
        const sum = (list: number[]) => list.reduce((a, b) => a + b, 0);
        options.onProgress?.({ phase: "download", loaded: sum(loaded), total: sum(totals) });
      }),
    );
  }
  const bytes = files.reduce((n, f) => n + f.size, 0);
  return { files, key: urls[0] as string, fromStore: stored === urls.length, bytes };
}

/** A picked or dropped file (or the shards of one), checked and kept like a download. */
export async function weightsFromFiles(files: Blob[], options: WeightsOptions): Promise<Weights> {
  if (options.sha256 && options.sha256.length !== files.length)
    throw new TypeError(`sha256 needs one digest per file: ${files.length} files, ${options.sha256.length} digests`);
  const store = await openStore();
  const kept: Blob[] = [];
  const first = files[0];
  if (!first) throw new TypeError("localModel needs a file");
  // One folder per model, so a split model's shards keep their names beside each other.
  const folder = `${FILE_KEY_PATH}${first.size}-${first instanceof File ? first.lastModified : 0}/`;
  let key = "";
  for (const [i, file] of files.entries()) {
    const name = file instanceof File ? file.name : `model-${i + 1}.gguf`;
    let hash: string | null = null;
    const expected = options.sha256?.[i];
    if (expected) {
      hash = await hashOf(file, options.onProgress);
      checkHash(name, expected, hash);
    }
    const fileKey = new URL(`${folder}${encodeURIComponent(name)}`, location.href).href;
    key ||= fileKey;
    options.onProgress?.({ phase: "store" });
    kept.push(await keep(store, fileKey, file, hash));
  }
  return { files: kept, key, fromStore: false, bytes: files.reduce((n, f) => n + f.size, 0) };
}

/** Remove a model (by its key or URL) from the page's store; true when it was there. */
export async function forgetWeights(key: string): Promise<boolean> {
  const store = await openStore();
  if (!store) return false;
  let removed = false;
  for (const shard of shardUrls(new URL(key, location.href).href)) removed = (await forget(store, shard)) || removed;
  return removed;
}
