// The runtime store's files in the page's origin-private file system (runtime-store.ts):
// wasmbox-runtime/<sha256 of the runtime's base URL>/<file name>/<sha256 of its bytes>.
// A file is written through a writable stream, which the browser commits whole on close: a reader
// sees the complete file or an empty one (being written, or left by a closed page), never a part;
// an empty one is a miss and is written again.
import { engineOf } from "../sandbox/stack.js";
import { sha256Hex } from "./hash.js";

const ROOT = "wasmbox-runtime";

/** The async iteration lib.dom's FileSystemDirectoryHandle has with DOM.AsyncIterable. */
type Listing = FileSystemDirectoryHandle & { keys(): AsyncIterable<string> };

const names = async (dir: FileSystemDirectoryHandle): Promise<string[]> => {
  const found: string[] = [];
  for await (const name of (dir as Listing).keys()) found.push(name);
  return found;
};

const notFound = (error: unknown): null => {
  if (error instanceof DOMException && (error.name === "NotFoundError" || error.name === "TypeMismatchError"))
    return null;
  throw error;
};

/** The folder's entry each File it gave came from (for store-reader.ts). */
const handles = new WeakMap<Blob, FileSystemFileHandle>();

/** The runtime folder's file behind `file`, when `file` is one it gave. */
export function folderHandleOf(file: Blob): FileSystemFileHandle | null {
  return handles.get(file) ?? null;
}

export class RuntimeFolder {
  private readonly bases = new Map<string, Promise<string>>();

  constructor(private readonly root: FileSystemDirectoryHandle) {}

  /** The directory of the runtime at `base`, or null when none was made and `create` is false. */
  private async baseDir(base: string, create: boolean): Promise<FileSystemDirectoryHandle | null> {
    let id = this.bases.get(base);
    if (!id) this.bases.set(base, (id = sha256Hex(base)));
    return this.root.getDirectoryHandle(await id, { create }).catch(notFound);
  }

  private async entry(base: string, name: string, sha256: string): Promise<FileSystemFileHandle | null> {
    const dir = await (await this.baseDir(base, false))?.getDirectoryHandle(name).catch(notFound);
    return (await dir?.getFileHandle(sha256).catch(notFound)) ?? null;
  }

  /** The stored file, or null (absent, or not written whole). */
  async file(base: string, name: string, sha256: string): Promise<File | null> {
    const handle = await this.entry(base, name, sha256);
    const file = await handle?.getFile();
    if (!handle || !file || file.size === 0) return null;
    handles.set(file, handle);
    return file;
  }

  async has(base: string, name: string, sha256: string): Promise<boolean> {
    return (await this.file(base, name, sha256)) !== null;
  }

  /**
   * Write the file, unless it is there already: a page may store one file twice (a sandbox's
   * download, and keeping it for the next visit), and an open writer locks the file against a
   * sandbox's reader (store-reader.ts). On a failure (quota) nothing of it is committed.
   */
  async put(base: string, name: string, sha256: string, bytes: ArrayBuffer): Promise<void> {
    if (await this.has(base, name, sha256)) return;
    const baseDir = await this.baseDir(base, true);
    const dir = await baseDir!.getDirectoryHandle(name, { create: true });
    const handle = await dir.getFileHandle(sha256, { create: true });
    const writable = await handle.createWritable();
    try {
      await writable.write(bytes);
      await writable.close();
    } catch (error) {
      // The file stays as it was: empty (a miss), or whole if another page wrote it meanwhile.
      await writable.abort().catch(() => undefined);
      throw error;
    }
  }

  /** Delete the files of `base` that are not among `current` (name → sha256). */
  async prune(base: string, current: Map<string, string>): Promise<void> {
    const baseDir = await this.baseDir(base, false);
    if (!baseDir) return;
    for (const name of await names(baseDir)) {
      const keep = current.get(name);
      if (!keep) {
        await baseDir.removeEntry(name, { recursive: true });
        continue;
      }
      const dir = await baseDir.getDirectoryHandle(name);
      for (const sha256 of await names(dir)) if (sha256 !== keep) await dir.removeEntry(sha256);
    }
  }
}

let folder: Promise<RuntimeFolder | null> | undefined;

/**
 * The page's runtime folder, or null where the browser cannot write one from a page (no
 * origin-private file system, or no writable streams in it: WebKitGTK) or refuses it (private
 * browsing). Opened once per page.
 */
export function runtimeFolder(): Promise<RuntimeFolder | null> {
  folder ??= (async () => {
    // Firefox only, where it was measured faster (docs/browsers.md: the runtime store).
    if (engineOf(navigator.userAgent) !== "firefox") return null;
    const writable = typeof FileSystemFileHandle === "function" && "createWritable" in FileSystemFileHandle.prototype;
    if (!writable || typeof navigator.storage?.getDirectory !== "function") return null;
    const root = await navigator.storage.getDirectory();
    return new RuntimeFolder(await root.getDirectoryHandle(ROOT, { create: true }));
  })().catch(() => null);
  return folder;
}
