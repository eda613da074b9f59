// Python syntax highlighting (highlight.js core with only the Python grammar, to stay small).
import hljs from "highlight.js/lib/core";
import python from "highlight.js/lib/languages/python";
import { h } from "./dom.js";
import { safeHtml } from "./sanitize.js";

hljs.registerLanguage("python", python);

export function codeBlock(code: string, label: string): HTMLElement {
  const element = h("code", { class: "hljs language-python" });
  // highlight.js escapes the source; the sanitiser is a second guard on its output.
  element.append(safeHtml(hljs.highlight(code, { language: "python" }).value));
  return h("pre", { class: "code", "aria-label": label }, element);
}
