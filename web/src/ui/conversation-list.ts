// The saved conversations: open one, rename it in place, or delete it after a confirmation, each
// with its size and last use. Actions are the caller's; this only draws and asks.
import { h } from "./dom.js";

export interface ConversationEntry {
  id: string;
  title: string;
  bytes: number;
  lastUsedAt: number;
  current: boolean;
}

export interface ConversationActions {
  open(id: string): void;
  rename(id: string, title: string): void;
  remove(id: string): void;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  return bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

export function lastUse(at: number, now = Date.now()): string {
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h ago`;
  return new Date(at).toLocaleDateString();
}

export class ConversationList {
  constructor(
    private readonly root: HTMLUListElement,
    private readonly actions: ConversationActions,
  ) {}

  show(entries: ConversationEntry[]): void {
    this.root.replaceChildren(...entries.map((entry) => this.row(entry)));
  }

  private row(entry: ConversationEntry): HTMLLIElement {
    const item = h("li", { class: "conversation", "data-id": entry.id });
    const open = h("button", { type: "button", class: "link", "aria-current": entry.current ? "page" : undefined }, entry.title);
    open.addEventListener("click", () => this.actions.open(entry.id));
    const meta = h("span", { class: "hint", title: new Date(entry.lastUsedAt).toLocaleString() }, `${formatBytes(entry.bytes)} · ${lastUse(entry.lastUsedAt)}`);
    const rename = h("button", { type: "button", class: "small", "aria-label": `Rename ${entry.title}` }, "Rename");
    rename.addEventListener("click", () => item.replaceChildren(this.renameForm(entry, item)));
    const remove = h("button", { type: "button", class: "small", "aria-label": `Delete ${entry.title}` }, "Delete");
    remove.addEventListener("click", () => item.replaceChildren(this.confirmDelete(entry, item)));
    item.append(open, meta, h("span", { class: "row-actions" }, rename, remove));
    return item;
  }

  private renameForm(entry: ConversationEntry, item: HTMLLIElement): HTMLFormElement {
    const input = h("input", { type: "text", value: entry.title, maxlength: "200", "aria-label": "New title" });
    const form = h("form", { class: "rename" }, input, h("button", { type: "submit", class: "small" }, "Save"));
    const cancel = h("button", { type: "button", class: "small" }, "Cancel");
    form.append(cancel);
    const back = (): void => void item.replaceWith(this.row(entry));
    cancel.addEventListener("click", back);
    input.addEventListener("keydown", (e) => e.key === "Escape" && (e.stopPropagation(), back()));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const title = input.value.trim();
      if (title && title !== entry.title) this.actions.rename(entry.id, title);
      else back();
    });
    queueMicrotask(() => input.select());
    return form;
  }

  private confirmDelete(entry: ConversationEntry, item: HTMLLIElement): HTMLElement {
    const yes = h("button", { type: "button", class: "small danger" }, "Delete");
    const no = h("button", { type: "button", class: "small" }, "Cancel");
    yes.addEventListener("click", () => this.actions.remove(entry.id));
    no.addEventListener("click", () => void item.replaceWith(this.row(entry)));
    queueMicrotask(() => no.focus());
    return h("div", { role: "group", "aria-label": `Delete ${entry.title}?` }, `Delete “${entry.title}” with its files and variables? `, yes, no);
  }
}
