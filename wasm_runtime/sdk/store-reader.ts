// A stored runtime file read whole by the page itself, through a synchronous access handle in a
// worker of its own, where that is the fastest way to the sandbox: in Firefox a Blob of the
// origin-private file system reaches another thread's reader through the parent process, where an
// access handle reads the file directly, and the sandbox frame shares the page's process, so the
// bytes move on to its worker without a copy. In Chromium the frame is another process: bytes
// would be copied there, and a Blob crosses by reference and reads fast, so a Blob goes on.
// Any failure (no worker allowed by the page's policy, a locked file) leaves the Blob to go on.
import { engineOf } from "../sandbox/stack.js";
import { mark } from "./marks.js";
import { folderHandleOf } from "./runtime-folder.js";

/** A reader unused this long is ended: it holds a thread. */
const IDLE_MS = 10_000;

type Answer = { id: number; bytes?: Uint8Array; error?: string };

/**
 * The helper worker's whole program (it runs as its own script, from this function's source, so
 * it uses nothing from outside it): read the file behind a handle, answer with its bytes.
 */
function readerMain(): void {
  type ReadOnly = { mode: "read-only" };
  type Access = { getSize(): number; read(into: Uint8Array, at: { at: number }): number; close(): void };
  type Handle = { createSyncAccessHandle(options?: ReadOnly): Promise<Access> };
  const read = async ({ id, handle }: { id: number; handle: Handle }): Promise<void> => {
    let access: Access | null = null;
    try {
      // Read-only where the engine knows the mode: other readers of the file are not locked out.
      access = await handle.createSyncAccessHandle({ mode: "read-only" });
      const bytes = new Uint8Array(access.getSize());
      const read = access.read(bytes, { at: 0 });
      if (read !== bytes.length) throw new Error(`read ${read} of ${bytes.length} bytes`);
      self.postMessage({ id, bytes }, { transfer: [bytes.buffer] });
    } catch (error) {
      self.postMessage({ id, error: String(error) });
    } finally {
      access?.close();
    }
  };
  // One at a time: where the engine ignores the read-only mode (Firefox), an access handle locks
  // its file, and two sandboxes starting at once ask for the same files.
  let queue = Promise.resolve();
  self.onmessage = (event: MessageEvent<{ id: number; handle: Handle }>) => {
    queue = queue.then(() => read(event.data));
  };
}

let reader: Worker | null = null;
let refused = false;
let nextId = 1;
const waiting = new Map<number, (answer: Answer) => void>();
let idleTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * Reads not yet sent to the reader, which reads one file at a time: the smallest is sent next, so
 * that a sandbox's small files (the package snapshot's record, which the compile of its side
 * modules waits for) are not held behind the 75 MB snapshot.
 */
const queued: { size: number; send: () => void; settle: (answer: Answer) => void }[] = [];
let reading = false;

function sendNext(): void {
  if (reading || !queued.length) return;
  queued.sort((a, b) => a.size - b.size);
  reading = true;
  queued.shift()!.send();
}

function end(): void {
  reader?.terminate();
  reader = null;
  const stopped = { id: 0, error: "the store reader stopped" };
  for (const settle of waiting.values()) settle(stopped);
  waiting.clear();
  for (const { settle } of queued.splice(0)) settle(stopped);
}

function startReader(): Worker {
  const source = new Blob([`(${readerMain.toString()})();`], { type: "text/javascript" });
  const url = URL.createObjectURL(source);
  try {
    const worker = new Worker(url, { name: "wasmbox-store-reader" });
    worker.onmessage = ({ data }: MessageEvent<Answer>) => {
      waiting.get(data.id)?.(data);
      waiting.delete(data.id);
    };
    // A page whose policy refuses blob: workers: this read and every later one send the Blob.
    worker.onerror = () => ((refused = true), end());
    return worker;
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Whether this engine delivers a stored file faster as bytes the page read (see above). */
export function pageReadsStoredFiles(userAgent: string): boolean {
  return engineOf(userAgent) === "firefox";
}

/**
 * The bytes of `file` when it is a file of the runtime folder and this engine gets them to the
 * sandbox faster that way; else null (send the Blob).
 */
export async function storedBytes(file: Blob): Promise<Uint8Array | null> {
  const handle = folderHandleOf(file);
  if (!handle || refused || typeof Worker !== "function" || !pageReadsStoredFiles(navigator.userAgent)) return null;
  clearTimeout(idleTimer);
  try {
    reader ??= startReader();
  } catch {
    refused = true;
    return null;
  }
  const id = nextId++;
  const answer = await new Promise<Answer>((resolve) => {
    const settle = (answer: Answer): void => {
      reading = false;
      resolve(answer);
      sendNext();
    };
    const send = (): void => {
      if (!reader) return settle({ id, error: "the store reader stopped" });
      waiting.set(id, settle);
      try {
        reader.postMessage({ id, handle });
      } catch (error) {
        waiting.delete(id);
        settle({ id, error: String(error) });
      }
    };
    queued.push({ size: file.size, send, settle });
    sendNext();
  });
  if (!waiting.size && !queued.length) idleTimer = setTimeout(end, IDLE_MS);
  if (answer.bytes?.length === file.size) return answer.bytes;
  mark(`store reader: ${answer.error ?? `${answer.bytes?.length} bytes, the file has ${file.size}`}`);
  return null;
}
