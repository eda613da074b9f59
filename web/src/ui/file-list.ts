// The sandbox's files, each a download button.
import type { FileInfo } from "wasmbox";
import { h } from "./dom.js";

export class FileList {
  constructor(
    private readonly root: HTMLUListElement,
    private readonly download: (path: string) => void,
  ) {}

  /** What the list shows now ("" after an error): an unchanged listing is not built again. */
  private shown = "";

  show(files: FileInfo[]): void {
    // The page lists after every activity; with thousands of files, rebuilding the rows each time
    // rebuilt thousands of rows after each run.
    const shown = files.map((file) => `${file.size}\0${file.path}`).join("\0");
    if (shown === this.shown && this.root.childElementCount === files.length) return;
    this.shown = shown;
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
    this.shown = "";
    this.root.replaceChildren(h("li", { class: "error", role: "alert" }, `Files cannot be listed: ${message}`));
  }
}
