// Model-written markdown, rendered through the sanitiser.
import { marked } from "marked";
import { safeHtml } from "./sanitize.js";

marked.use({ gfm: true, breaks: false });

export function renderMarkdown(text: string): DocumentFragment {
  return safeHtml(marked.parse(text, { async: false }));
}
