// The host-side copy of a sandbox's files: what `writeFile` put there and what runs the worker
// survived wrote (failed ones too). It outlives the worker: a replacement gets the files back.
import type { FileInfo } from "../protocol/types.js";
import type { Engine } from "./engine.js";

export class FileMirror {
  private readonly files = new Map<string, Uint8Array>();

  set(path: string, data: Uint8Array): void {
    this.files.set(path, data);
  }

  /** Copy the files a run created or changed. */
  async capture(engine: Engine, changed: FileInfo[]): Promise<void> {
    for (const { path } of changed) {
      const reply = await engine.call({ type: "read-file", path });
      if (reply.type === "file") this.files.set(path, reply.data);
    }
  }

  async restore(engine: Engine): Promise<void> {
    for (const [path, data] of this.files) await engine.call({ type: "write-file", path, data });
  }
}
