// The host page's side of runtime file delivery (see sandbox/runtime-fetch.ts): files are fetched
// from the page's own origin, so its HTTP cache serves repeat visits, and each file is fetched
// once per page however many sandboxes boot. Bytes are counted as they arrive, for progress bars.
import { RUNTIME_FILE_NAME } from "../protocol.js";

const RUNTIME_URL = new URL("../runtime/", import.meta.url).href;
const MANIFEST = "manifest.json";
const files = new Map<string, Promise<ArrayBuffer>>();

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

/** Uncompressed sizes from the manifest, so progress has a total even for compressed responses. */
async function expectedSize(name: string, response: Response): Promise<number> {
  if (name !== MANIFEST) {
    try {
      const manifest = JSON.parse(new TextDecoder().decode(await fileBytes(MANIFEST))) as {
        files?: Record<string, { size?: unknown }>;
      };
      const size = manifest.files?.[name]?.size;
      if (typeof size === "number") return size;
    } catch {
      // no manifest: fall back to the header
    }
  }
  return Number(response.headers.get("Content-Length")) || 0;
}

async function download(name: string): Promise<ArrayBuffer> {
  const response = await fetch(RUNTIME_URL + name);
  if (!response.ok || !response.body) throw new Error(`${name}: ${response.status}`);
  const expected = await expectedSize(name, response);
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
  for (const chunk of chunks) (bytes.set(chunk, offset), (offset += chunk.byteLength));
  return bytes.buffer;
}

function fileBytes(name: string): Promise<ArrayBuffer> {
  let bytes = files.get(name);
  if (!bytes) {
    bytes = download(name);
    bytes.catch(() => files.delete(name)); // a failure is not remembered
    files.set(name, bytes);
  }
  return bytes;
}

/** A copy of the runtime file `name` (a copy, because the caller transfers it away). */
export async function runtimeFile(name: string): Promise<Uint8Array> {
  if (!RUNTIME_FILE_NAME.test(name)) throw new Error(`not a runtime file name: ${JSON.stringify(name)}`);
  return new Uint8Array((await fileBytes(name)).slice(0));
}
