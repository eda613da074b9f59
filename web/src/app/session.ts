// The page's one sandbox: started at load, shared by the chat and the console, so variables and
// files carry over between them and across turns.
import { Sandbox, type FileInfo, type StartProgress } from "wasmbox";
import { MAX_UPLOAD_BYTES, safeFileName, saveBytes } from "../ui/files.js";

// Not matplotlib: its first import builds a font cache, seconds of work only plots need.
const WARM_PACKAGES = ["numpy", "pandas"];

/** The per-run deadline: 30 s, or `?timeoutMs=` on the page URL (1 s to 10 min). */
export const RUN_TIMEOUT_MS = ((): number => {
  const asked = Number(new URLSearchParams(location.search).get("timeoutMs"));
  return Number.isFinite(asked) && asked >= 1_000 && asked <= 600_000 ? asked : 30_000;
})();

export class Session {
  private constructor(readonly sandbox: Sandbox) {}

  static async start(onProgress: (progress: StartProgress) => void): Promise<Session> {
    // Data questions nearly always import these: the spare loads them while the user types.
    void Sandbox.warmup({ packages: WARM_PACKAGES });
    return new Session(await Sandbox.create({ timeoutMs: RUN_TIMEOUT_MS, onProgress }));
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
