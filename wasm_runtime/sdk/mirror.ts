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

  /**
   * Copy the files a run created or changed, those within the cap. The requests go out together:
   * the worker answers them back to back instead of waiting a round trip for each.
   */
  async capture(engine: Engine, changed: FileInfo[]): Promise<void> {
    const wanted = changed.filter(({ size }) => size <= LIMITS.maxFileBytes);
    const replies = await Promise.all(
      wanted.map(({ path }) => engine.call({ type: "read-file", path }).catch(skipUnlessDead)),
    );
    replies.forEach((reply, i) => reply?.type === "file" && this.files.set(wanted[i]!.path, reply.data));
  }

  async restore(engine: Engine): Promise<void> {
    await Promise.all([...this.files].map(([path, data]) => engine.call({ type: "write-file", path, data })));
  }
}

/** Only the engine's death ends a capture; a refused or failed read skips that file. */
function skipUnlessDead(error: unknown): null {
  if (!(error instanceof SandboxError) || error.type === "runtime_died") throw error;
  return null;
}
