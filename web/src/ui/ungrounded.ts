// Numbers of an answer that no run computed (the agent's `ungrounded`), marked where they stand.
import { h } from "./dom.js";

export const UNGROUNDED_TITLE = "not computed by any run";

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Wrap each occurrence of `numbers` in `element`'s text (not inside code) in a titled <mark>. */
export function markUngrounded(element: HTMLElement, numbers: string[]): void {
  if (!numbers.length) return;
  const alternatives = [...numbers].sort((a, b) => b.length - a.length).map(escape);
  const pattern = new RegExp(`(?<![\\w.,])(?:${alternatives.join("|")})(?![\\w]|[.,]\\d)`, "g");
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement?.closest("code, pre, mark")) nodes.push(node as Text);
  }
  for (const node of nodes) {
    const text = node.data;
    const pieces: (string | HTMLElement)[] = [];
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      pieces.push(text.slice(last, match.index));
      pieces.push(h("mark", { class: "ungrounded", title: UNGROUNDED_TITLE }, match[0]));
      last = match.index + match[0].length;
    }
    if (!last) continue;
    pieces.push(text.slice(last));
    node.replaceWith(...pieces);
  }
}

/** The note under an answer whose numbers stayed unproven. */
export const ungroundedNote = (numbers: string[]): string =>
  `Not computed by any run: ${numbers.join(", ")}. The model stated these numbers without a run that printed them.`;
