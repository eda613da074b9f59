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
  private latest: ConversationEntry[] = [];
  /** While a row is being renamed or its deletion confirmed, updates wait (they would wipe it). */
  private editing = false;

  constructor(
    private readonly root: HTMLUListElement,
    private readonly actions: ConversationActions,
  ) {}

  show(entries: ConversationEntry[]): void {
    this.latest = entries;
    if (!this.editing) this.root.replaceChildren(...entries.map((entry) => this.row(entry)));
  }

  private edit(item: HTMLLIElement, content: HTMLElement): void {
    this.editing = true;
    item.replaceChildren(content);
  }

  /** Leave the edit; `then` runs the action, whose own update redraws the list. */
  private done(then?: () => void): void {
    this.editing = false;
    if (then) then();
    else this.show(this.latest);
  }

  private row(entry: ConversationEntry): HTMLLIElement {
    const item = h("li", { class: "conversation", "data-id": entry.id });
    const open = h(
      "button",
      { type: "button", class: "link", "aria-current": entry.current ? "page" : undefined },
      entry.title,
    );
    open.addEventListener("click", () => this.actions.open(entry.id));
    const meta = h(
      "span",
      { class: "hint", title: new Date(entry.lastUsedAt).toLocaleString() },
      `${formatBytes(entry.bytes)} · ${lastUse(entry.lastUsedAt)}`,
    );
    const rename = h("button", { type: "button", class: "small", "aria-label": `Rename ${entry.title}` }, "Rename");
    rename.addEventListener("click", () => this.edit(item, this.renameForm(entry)));
    const remove = h("button", { type: "button", class: "small", "aria-label": `Delete ${entry.title}` }, "Delete");
    remove.addEventListener("click", () => this.edit(item, this.confirmDelete(entry)));
    item.append(open, meta, h("span", { class: "row-actions" }, rename, remove));
    return item;
  }

  private renameForm(entry: ConversationEntry): HTMLFormElement {
    const input = h("input", { type: "text", value: entry.title, maxlength: "200", "aria-label": "New title" });
    const form = h("form", { class: "rename" }, input, h("button", { type: "submit", class: "small" }, "Save"));
    const cancel = h("button", { type: "button", class: "small" }, "Cancel");
    form.append(cancel);
    const back = (): void => this.done();
    cancel.addEventListener("click", back);
    input.addEventListener("keydown", (e) => e.key === "Escape" && (e.stopPropagation(), back()));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const title = input.value.trim();
      if (title && title !== entry.title) this.done(() => this.actions.rename(entry.id, title));
      else back();
    });
    queueMicrotask(() => input.select());
    return form;
  }

  private confirmDelete(entry: ConversationEntry): HTMLElement {
    const yes = h("button", { type: "button", class: "small danger" }, "Delete");
    const no = h("button", { type: "button", class: "small" }, "Cancel");
    yes.addEventListener("click", () => this.done(() => this.actions.remove(entry.id)));
    no.addEventListener("click", () => this.done());
    queueMicrotask(() => no.focus());
    return h(
      "div",
      { role: "group", "aria-label": `Delete ${entry.title}?` },
      `Delete “${entry.title}” with its files and variables? `,
      yes,
      no,
    );
  }
}
