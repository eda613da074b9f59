// The sandbox's files, each a download button.
import type { FileInfo } from "wasmbox";
import { h } from "./dom.js";

export class FileList {
  constructor(
    private readonly root: HTMLUListElement,
    private readonly download: (path: string) => void,
  ) {}

  show(files: FileInfo[]): void {
    this.root.replaceChildren(
      ...files.map((file) => {
        const button = h("button", { type: "button", class: "link" }, `⬇ ${file.path}`);
        button.addEventListener("click", () => this.download(file.path));
        return h("li", {}, button, ` ${file.size} bytes`);
      }),
    );
  }

  /** The listing was refused (e.g. more files than a listing carries): say so in its place. */
  showError(message: string): void {
    this.root.replaceChildren(h("li", { class: "error", role: "alert" }, `Files cannot be listed: ${message}`));
  }
}
