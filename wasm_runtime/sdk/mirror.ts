// The host-side copy of a sandbox's files: what `writeFile` put there and what runs the worker
// survived wrote (failed ones too). It outlives the worker: a replacement gets the files back.
// A file over the per-request cap is not copied (reading it back is refused): it stays in the
// worker, and does not survive a restart.
import { LIMITS, type FileInfo } from "../protocol/types.js";
import type { Engine } from "./engine.js";
import { SandboxError } from "./errors.js";

export class FileMirror {
  private readonly files = new Map<string, Uint8Array>();

  set(path: string, data: Uint8Array): void {
    this.files.set(path, data);
  }

  /** Copy the files a run created or changed, those within the cap. A file listed empty is
   * copied without asking the worker: its bytes are known. (One written again since the run
   * ended is listed, and copied, by the next run, as a file that changed then would be.) */
  async capture(engine: Engine, changed: FileInfo[]): Promise<void> {
    const wanted = changed.filter(({ size }) => size > 0 && size <= LIMITS.maxFileBytes);
    for (const { path, size } of changed) if (size === 0) this.files.set(path, new Uint8Array(0));
    for (const [path, data] of await readFiles(engine, wanted)) this.files.set(path, data);
  }

  async restore(engine: Engine): Promise<void> {
    await Promise.all([...this.files].map(([path, data]) => engine.call({ type: "write-file", path, data })));
  }
}

/**
 * The bytes of the `wanted` files, in `read-files` batches of at most maxFileBytes (by their
 * listed sizes) and maxListEntries paths each, sent together: a run that wrote 10,000 small files
 * waited a round trip for each. A file the worker cannot read, or that grew past its batch's
 * room since it was listed, is left out.
 */
export async function readFiles(engine: Engine, wanted: readonly FileInfo[]): Promise<Map<string, Uint8Array>> {
  const batches: string[][] = [];
  let room = -1;
  for (const { path, size } of wanted) {
    const last = batches.at(-1);
    if (!last || size > room || last.length >= LIMITS.maxListEntries) {
      batches.push([path]);
      room = LIMITS.maxFileBytes - size;
    } else {
      last.push(path);
      room -= size;
    }
  }
  const replies = await Promise.all(
    batches.map((paths) => engine.call({ type: "read-files", paths }).catch(skipUnlessDead)),
  );
  const files = new Map<string, Uint8Array>();
  for (const reply of replies) {
    if (reply?.type === "file-batch") for (const { path, data } of reply.files) files.set(path, data);
  }
  return files;
}

/** Only the engine's death ends a capture; a refused or failed read skips that file. */
function skipUnlessDead(error: unknown): null {
  if (!(error instanceof SandboxError) || error.type === "runtime_died") throw error;
  return null;
}
