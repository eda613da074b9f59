// A line to type in where running code's input() waits: appended under the run's output so far
// (which ends with the prompt); Enter answers it, and the run echoes the line into its output.
// Used by the app's console and the embed's cells.
import { h } from "./dom.js";

/** The line the user types (the field goes away once sent); null when `signal` aborts first. */
export function askLine(container: HTMLElement, prompt: string, signal?: AbortSignal): Promise<string | null> {
  if (signal?.aborted) return Promise.resolve(null);
  const field = h("input", { type: "text", "aria-label": prompt ? `input: ${prompt}` : "input", autocomplete: "off" });
  const form = h("form", { class: "input-line" }, field);
  container.append(form);
  field.focus();
  return new Promise((resolve) => {
    const done = (line: string | null) => {
      signal?.removeEventListener("abort", stop);
      form.remove();
      resolve(line);
    };
    const stop = () => done(null);
    signal?.addEventListener("abort", stop, { once: true });
    form.addEventListener("submit", (event) => (event.preventDefault(), done(field.value)));
  });
}
