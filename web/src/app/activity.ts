// The page's one current activity (a chat turn or a console run): Stop and Esc abort it, the status
// bar times it, and the conversation log is `aria-busy` while it runs. Its failure is shown, never
// dropped: a model failure with what to try.
import type { StatusBar } from "../ui/status.js";

export interface Notes {
  note(text: string, kind?: "note" | "error"): void;
  /** Render what is still waiting for the next frame, so "done" is announced on a finished page. */
  settle(): void;
}

interface ModelFailure {
  name: "ChatError" | "LocalModelError";
  message: string;
  hint: string;
}

const isModelFailure = (e: unknown): e is ModelFailure =>
  typeof e === "object" &&
  e !== null &&
  ["ChatError", "LocalModelError"].includes(String((e as { name?: unknown }).name));

export class Activity {
  private current: AbortController | null = null;

  constructor(
    private readonly status: StatusBar,
    private readonly stopButton: HTMLButtonElement,
    private readonly log: HTMLElement,
    private readonly notes: Notes,
    /** After each activity, before it is announced as ended (the app saves the conversation). */
    private readonly onEnd: () => Promise<void>,
  ) {
    stopButton.addEventListener("click", () => this.stop());
    log.setAttribute("aria-busy", "false");
  }

  get running(): boolean {
    return this.current !== null;
  }

  stop(): void {
    this.current?.abort();
  }

  /** Run `work` unless something is already running; returns when it has ended, however it ended. */
  async run(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    if (this.current) return;
    const controller = (this.current = new AbortController());
    this.stopButton.disabled = false;
    this.log.setAttribute("aria-busy", "true");
    const done = this.status.running(label);
    try {
      await work(controller.signal);
    } catch (error) {
      this.report(error, controller.signal.aborted);
    } finally {
      this.stopButton.disabled = true;
      // Ended once saved: a reload the moment the answer shows brings the whole turn back.
      await this.onEnd().catch((error: unknown) => this.report(error, false));
      done();
      this.current = null;
      this.notes.settle();
      this.log.setAttribute("aria-busy", "false");
    }
  }

  private report(error: unknown, aborted: boolean): void {
    if (aborted) return this.notes.note("Stopped.");
    if (isModelFailure(error))
      return this.notes.note(`The model request failed: ${error.message}. ${error.hint}`, "error");
    this.notes.note(error instanceof Error ? error.message : String(error), "error");
  }
}
