// Before "Run all": the files the notebook read, each with a file picker. A chosen file is saved
// under the name the code reads, whatever it is called on disk. Skipping runs without them.
import { h } from "./dom.js";

/** The files chosen by name (maybe none), or null when the user cancelled "Run all". */
export function askForFiles(names: string[], signal: AbortSignal): Promise<Map<string, File> | null> {
  const pickers = names.map((name) => {
    const input = h("input", { type: "file", "aria-label": `File for ${name}` });
    return { name, input, row: h("li", {}, h("code", {}, name), " ", input) };
  });
  const run = h("button", { type: "submit", value: "run" }, "Upload and run all");
  const skip = h("button", { type: "submit", value: "skip" }, "Run without them");
  const cancel = h("button", { type: "submit", value: "cancel" }, "Cancel");
  const form = h(
    "form",
    { method: "dialog" },
    h("h2", { id: "files-prompt-title" }, "Files this notebook used"),
    h(
      "p",
      {},
      "Run all runs the code again in a new sandbox. It read these files (found in its runs and its code): " +
        "choose each one to upload it under that name, or run without them.",
    ),
    h("ul", {}, ...pickers.map((p) => p.row)),
    h("p", { class: "row-actions" }, run, " ", skip, " ", cancel),
  );
  const dialog = h("dialog", { class: "files-prompt", "aria-labelledby": "files-prompt-title" }, form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    const stop = (): void => dialog.close("cancel");
    signal.addEventListener("abort", stop, { once: true });
    dialog.addEventListener(
      "close",
      () => {
        signal.removeEventListener("abort", stop);
        dialog.remove();
        if (dialog.returnValue === "run" || dialog.returnValue === "skip") {
          const chosen = new Map<string, File>();
          if (dialog.returnValue === "run")
            for (const { name, input } of pickers) if (input.files?.[0]) chosen.set(name, input.files[0]);
          resolve(chosen);
        } else {
          resolve(null); // Cancel, Escape or Stop
        }
      },
      { once: true },
    );
    dialog.showModal();
  });
}
