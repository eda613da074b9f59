// The host-side copy of a sandbox's files: what `writeFile` put there and what runs the worker
// survived wrote (failed ones too). It outlives the worker: a replacement gets the files back.
import type { FileInfo } from "../protocol/types.js";
import type { Engine } from "./engine.js";

export class FileMirror {
  private readonly files = new Map<string, Uint8Array>();

  set(path: string, data: Uint8Array): void {
    this.files.set(path, data);
  }

  /**
   * Copy the files a run created or changed. The requests go out together: the worker answers
   * them back to back instead of waiting a round trip for each (10,000 files took seconds).
   */
  async capture(engine: Engine, changed: FileInfo[]): Promise<void> {
    const replies = await Promise.all(changed.map(({ path }) => engine.call({ type: "read-file", path })));
    replies.forEach((reply, i) => reply.type === "file" && this.files.set(changed[i]!.path, reply.data));
  }

  async restore(engine: Engine): Promise<void> {
    await Promise.all([...this.files].map(([path, data]) => engine.call({ type: "write-file", path, data })));
  }
}
