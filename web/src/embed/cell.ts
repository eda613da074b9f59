// <wasmbox-cell>: editable Python with a Run button (and Ctrl/Cmd+Enter), whose outputs render
// exactly as in the app (ui/result-view.ts, sanitised by ui/sanitize.ts), in a shadow root.
// While it runs, its output shows as it comes, and input() gets a line to type in there (where
// the page is cross-origin isolated; elsewhere input() raises EOFError saying why).
import type { ExecutionResult } from "wasmbox";
import { saveBytes } from "../ui/files.js";
import { h } from "../ui/dom.js";
import { askLine } from "../ui/input-line.js";
import { expectCharts, expectChartsAfter, expectImported } from "../ui/chart-view.js";
import { renderResult } from "../ui/result-view.js";
import { packageList, sessionSandbox, timeoutMs } from "./sessions.js";
import { CELL_CSS } from "./styles.js";

const DEFAULT_SESSION = "default";

/** The code as written in the page, without the indentation the HTML around it added. */
export function dedent(text: string): string {
  const lines = text
    .replace(/^\s*\n/, "")
    .replace(/\s+$/, "")
    .split("\n");
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join("\n");
}

export class WasmboxCell extends HTMLElement {
  private code: HTMLTextAreaElement | null = null;
  private button: HTMLButtonElement | null = null;
  private status: HTMLElement | null = null;
  private output: HTMLElement | null = null;
  private running = false;
  /** The last run's result (null before the first). A `result` event carries it too. */
  result: ExecutionResult | null = null;

  get session(): string {
    return this.getAttribute("session")?.trim() || DEFAULT_SESSION;
  }

  connectedCallback(): void {
    if (this.shadowRoot) return; // moved in the page: already built
    const root = this.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = CELL_CSS;
    this.code = h("textarea", {
      "aria-label": "Python code",
      spellcheck: "false",
      "aria-keyshortcuts": "Control+Enter Meta+Enter",
    });
    this.code.value = dedent(this.textContent ?? "");
    this.code.rows = Math.min(20, Math.max(2, this.code.value.split("\n").length));
    this.button = h("button", { type: "button" }, "Run");
    this.status = h("span", { class: "status", role: "status", "aria-live": "polite" });
    this.output = h("div", { class: "output", "aria-label": "Output", "aria-live": "polite" });
    root.append(
      style,
      h("div", { class: "cell" }, this.code, h("div", { class: "bar" }, this.button, this.status), this.output),
    );
    this.button.addEventListener("click", () => void this.run());
    this.code.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void this.run();
      }
    });
    if (this.hasAttribute("autorun")) void this.run();
  }

  /** Run the cell's current code in its session's sandbox and show the result. */
  async run(): Promise<ExecutionResult | null> {
    if (this.running || !this.code) return null;
    this.running = true;
    this.setAttribute("aria-busy", "true");
    this.button!.disabled = true;
    this.say("Starting Python…");
    try {
      const sandbox = await sessionSandbox(this.session, this.sessionPackages());
      performance.mark("wasmbox:cell-sandbox-ready");
      this.say("Running…");
      const live = h("pre", { class: "live" }); // inside the output: its label is the output's
      this.output!.replaceChildren(live);
      expectCharts(this.code.value, this.output!);
      const result = await sandbox.execute(this.code.value, {
        timeoutMs: timeoutMs(this.getAttribute("timeout")),
        onStdout: (text) => live.append(text),
        onImport: (module) => expectImported(module, this.output!),
        onStderr: (text) => live.append(h("span", { class: "stderr" }, text)),
        onInput: (prompt) => askLine(live, prompt),
      });
      const download = (path: string): void => void sandbox.readFile(path).then((bytes) => saveBytes(bytes, path));
      this.output!.replaceChildren(renderResult(result, download));
      expectChartsAfter(result, this.output!);
      this.say("");
      this.result = result;
      performance.mark("wasmbox:cell-result");
      this.dispatchEvent(new CustomEvent("result", { detail: result }));
      return result;
    } catch (error) {
      this.say(`The sandbox could not start: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    } finally {
      this.running = false;
      this.removeAttribute("aria-busy");
      this.button!.disabled = false;
    }
  }

  /** The packages every cell of this session on the page asks for (the sandbox is shared). */
  private sessionPackages(): string[] {
    const cells = [...document.querySelectorAll<WasmboxCell>("wasmbox-cell")].filter((c) => c.session === this.session);
    return [...new Set(cells.flatMap((c) => packageList(c.getAttribute("packages"))))];
  }

  private say(text: string): void {
    this.status!.textContent = text;
  }
}
