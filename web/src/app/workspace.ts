// Which conversation the page shows: at load the one the URL names (so a reload comes back to it),
// else an empty saved one, else a new one; switched, renamed and deleted from the list. Leaving a
// conversation saves it first.
import {
  Sandbox,
  type ChatFn,
  type HttpChatOptions,
  type RestartedEvent,
  type StartProgress,
  type StreamingMode,
} from "wasmbox";
import type { ChatView } from "../ui/chat-view.js";
import type { ConversationEntry } from "../ui/conversation-list.js";
import { Conversation } from "./conversation.js";
import { restartedNote, restoredNote } from "./notes.js";
import { savedConversation, type SavedConversation } from "./saved.js";
import { Session } from "./session.js";

export interface WorkspaceHooks {
  onProgress(progress: StartProgress): void;
  /** A conversation is opening (the view is already empty). */
  opening(): void;
  opened(session: Session): void;
  /** The list changed (a save, a rename, a deletion, a switch). */
  listChanged(): void;
  note(text: string, kind?: "note" | "error"): void;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class Workspace {
  current: Promise<Conversation> | null = null;
  private id: string | null = null;

  constructor(
    private readonly view: ChatView,
    private readonly streaming: () => Record<string, StreamingMode>,
    private readonly chat: () => HttpChatOptions | ChatFn,
    private readonly hooks: WorkspaceHooks,
  ) {}

  /** At page load: the saved conversations are read first, so an empty one is reused. */
  start(): Promise<Conversation> {
    const named = decodeURIComponent(location.hash.slice(1));
    this.current = Sandbox.loadSaved().then(() => {
      const empty = Sandbox.list().find(
        (e) => e.persisted && e.state === "closed" && e.title === undefined && e.runs === 0,
      );
      return this.load(named || empty?.id || null, null, !named);
    });
    return this.current;
  }

  /** Open a saved conversation (null: a new one); on failure, say why and start a new one. */
  open(id: string | null, quiet = false): Promise<Conversation> {
    const leaving = this.current;
    this.current = this.load(id, leaving, quiet);
    return this.current;
  }

  /**
   * A transcript read from a file (or copied for "Run all") as a new conversation in a new
   * sandbox, named `title`; the one shown before is saved and stays in the list.
   */
  openImported(saved: SavedConversation, title: string): Promise<Conversation> {
    const leaving = this.current;
    this.current = this.load(null, leaving, true, { saved, title });
    return this.current;
  }

  entries(): ConversationEntry[] {
    return Sandbox.list()
      .filter((e) => e.persisted && (e.id === this.id || e.title !== undefined || (e.runs ?? 0) > 0))
      .sort((a, b) => b.lastUsedAt - a.lastUsedAt)
      .map((e) => ({
        id: e.id,
        title: e.title ?? (e.id === this.id ? "New chat" : "Untitled session"),
        bytes: e.bytes ?? 0,
        lastUsedAt: e.lastUsedAt,
        current: e.id === this.id,
      }));
  }

  async rename(id: string, title: string): Promise<void> {
    await Sandbox.rename(id, title).catch((error) => this.hooks.note(`Could not rename: ${message(error)}`, "error"));
    this.hooks.listChanged();
  }

  /** Delete a conversation; deleting the open one opens a new one. */
  async remove(id: string): Promise<void> {
    if (id === this.id) {
      const leaving = this.current;
      this.id = null;
      // Sandbox.delete closes the open sandbox without saving it.
      this.current = (async () => {
        await leaving?.catch(() => null);
        await this.deleteOrSay(id);
        return this.load(null, null, true);
      })();
      await this.current.catch(() => undefined);
    } else {
      await this.deleteOrSay(id);
    }
    this.hooks.listChanged();
  }

  private async deleteOrSay(id: string): Promise<void> {
    await Sandbox.delete(id).catch((error) => this.hooks.note(`Could not delete: ${message(error)}`, "error"));
  }

  /** Save after an activity, then show the list with the new size. */
  async saved(): Promise<void> {
    const conversation = await this.current?.catch(() => null);
    await conversation
      ?.save()
      .catch((error) => this.hooks.note(`This conversation could not be saved: ${message(error)}`, "error"));
    this.hooks.listChanged();
  }

  private async load(
    id: string | null,
    leaving: Promise<Conversation> | null,
    quiet: boolean,
    imported?: { saved: SavedConversation; title: string },
  ): Promise<Conversation> {
    const left = await leaving?.catch(() => null);
    if (left) {
      await left.save().catch(() => undefined);
      await (await left.session).sandbox.close();
    }
    this.view.clear();
    this.hooks.opening();
    const session = await this.session(id, quiet);
    const { sandbox } = session;
    this.id = session.persisted ? sandbox.id : null;
    const saved = imported?.saved ?? savedConversation(sandbox.appData, sandbox.history);
    const conversation = new Conversation(Promise.resolve(session), this.view, this.streaming, saved, this.chat);
    if (imported && session.persisted) {
      await sandbox.rename(imported.title).catch(() => undefined); // a failed save shows as savefailed
      await conversation.save().catch(() => undefined);
    }
    this.view.showTranscript(saved.transcript);
    if (sandbox.resumeReport && sandbox.history.length) this.view.note(restoredNote(sandbox.resumeReport));
    if (!session.persisted)
      this.view.note(
        "This browser cannot save conversations here (no IndexedDB or Web Locks): this one ends with the page.",
      );
    history.replaceState(null, "", location.pathname + location.search);
    // Named in the address once saved, so a reload before the first save starts afresh quietly.
    if (this.id) void this.nameInAddress(sandbox);
    sandbox.addEventListener("restarted", (e) => this.hooks.note(restartedNote((e as RestartedEvent).detail), "error"));
    sandbox.addEventListener("savefailed", (e) =>
      this.hooks.note(`Saving failed: ${message((e as CustomEvent<{ error: Error }>).detail.error)}`, "error"),
    );
    this.hooks.opened(session);
    this.hooks.listChanged();
    return conversation;
  }

  private async nameInAddress(sandbox: Sandbox): Promise<void> {
    await sandbox.flush().catch(() => undefined);
    if (this.id === sandbox.id) history.replaceState(null, "", `#${encodeURIComponent(sandbox.id)}`);
  }

  private async session(id: string | null, quiet: boolean): Promise<Session> {
    if (id) {
      try {
        return await Session.resume(id, this.hooks.onProgress);
      } catch (error) {
        if (!quiet) this.hooks.note(`Could not open that conversation: ${message(error)}. This is a new one.`, "error");
      }
    }
    return Session.start(this.hooks.onProgress);
  }
}
