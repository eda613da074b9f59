// A conversation's sandbox: persisted (files, variables and the conversation saved in this
// browser after each run), shared by the chat and the console so variables and files carry over.
import { Sandbox, type FileInfo, type StartProgress } from "wasmbox";
import { MAX_UPLOAD_BYTES, safeFileName, saveBytes } from "../ui/files.js";

// Data questions nearly always import numpy and pandas, and a chart is the most common answer:
// the spare loads and imports them, and draws one throwaway figure, while the user types. The
// spares that replace it import them too once the page is quiet: a saved conversation opened
// later then resumes into such a spare, without booting a worker from the package snapshot.
const WARM_PACKAGES = ["numpy", "pandas", "matplotlib"];
const warmup = (): Promise<void> =>
  Sandbox.warmup({ packages: WARM_PACKAGES, refill: "quiet", idlePackages: WARM_PACKAGES });

/** The per-run deadline: 30 s, or `?timeoutMs=` on the page URL (1 s to 10 min). */
export const RUN_TIMEOUT_MS = ((): number => {
  const asked = Number(new URLSearchParams(location.search).get("timeoutMs"));
  return Number.isFinite(asked) && asked >= 1_000 && asked <= 600_000 ? asked : 30_000;
})();

type OnProgress = (progress: StartProgress) => void;

/** Saving needs IndexedDB and the Web Locks API (one writer per conversation across tabs). */
const canPersist = (): boolean => typeof indexedDB !== "undefined" && navigator.locks !== undefined;

export class Session {
  private constructor(
    readonly sandbox: Sandbox,
    /** False where this browser cannot save (no IndexedDB or Web Locks): the page says so. */
    readonly persisted: boolean,
  ) {}

  /** A new conversation's sandbox; unsaved where the browser refuses storage. */
  static async start(onProgress: OnProgress): Promise<Session> {
    void warmup();
    const persist = canPersist();
    return new Session(await Sandbox.create({ timeoutMs: RUN_TIMEOUT_MS, onProgress, persist }), persist);
  }

  /** A saved conversation's sandbox, with its files and variables back (SessionLocked if open elsewhere). */
  static async resume(id: string, onProgress: OnProgress): Promise<Session> {
    void warmup();
    return new Session(await Sandbox.resume(id, { onProgress }), true);
  }

  listFiles(): Promise<FileInfo[]> {
    return this.sandbox.listFiles();
  }

  /** Upload into the working directory; returns the name used. Throws a readable error. */
  async upload(file: File): Promise<string> {
    if (file.size > MAX_UPLOAD_BYTES) {
      throw new Error(`${file.name} is ${(file.size / 1e6).toFixed(1)} MB; the limit is 100 MB per file.`);
    }
    const name = safeFileName(file.name);
    await this.sandbox.writeFile(name, new Uint8Array(await file.arrayBuffer()));
    return name;
  }

  async download(path: string): Promise<void> {
    saveBytes(await this.sandbox.readFile(path), path);
  }
}
