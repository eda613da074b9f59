// The transcript on screen, updated as agent events arrive (tokens, code, live output, results).
import type { AgentEvent, ExecutionResult, Transcript, Turn } from "wasmbox";
import { expectCharts, expectChartsAfter, expectImported } from "./chart-view.js";
import { h } from "./dom.js";
import { codeBlock } from "./highlight.js";
import { askLine } from "./input-line.js";
import { renderMarkdown } from "./markdown.js";
import { renderResult, type DownloadFn } from "./result-view.js";
import { markUngrounded, ungroundedNote } from "./ungrounded.js";

interface LiveText {
  element: HTMLElement;
  text: string;
  pending: boolean;
}

export class ChatView {
  private turnElement: HTMLElement | null = null;
  private liveText: LiveText | null = null;
  private readonly liveOutputs = new Map<string, HTMLElement>();
  /** The end of the streamed tool call's arguments so far: a library's name split across pieces. */
  private callTail = "";
  /** The first screen (ui/welcome.ts), shown while the conversation has no turn. */
  private welcome: HTMLElement | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly download: DownloadFn,
  ) {}

  handle(event: AgentEvent): void {
    switch (event.type) {
      case "turn":
        return this.startTurn(event.turn);
      case "text":
        return this.appendText(event.text);
      case "call-arguments":
        return this.expectFromCall(event.text);
      case "code":
        this.callTail = "";
        expectCharts(event.part.code, this.root);
        return this.showCode(event.part.callId, event.part.code, event.form);
      case "output":
        return this.appendOutput(event.callId, event.stream, event.text);
      case "import":
        return expectImported(event.module, this.root);
      case "result":
        return this.showResult(event.part.callId, event.part.result);
      case "step-limit":
        return this.note(`Stopped after ${event.steps} steps without a final answer.`, "error");
      case "model":
        return this.note(`Model: ${event.model} from this message on (was ${event.previous}).`);
      case "invalid-call":
        return this.note(`The model's run_python call could not be run: ${event.problem}. It was told so.`, "error");
      case "notice":
        return this.note(event.text);
      case "ungrounded":
        return this.showUngrounded(event.numbers);
    }
  }

  /** A native tool call's code names a chart library while it streams: its frame starts then. */
  private expectFromCall(text: string): void {
    const seen = this.callTail + text;
    expectCharts(seen, this.root);
    this.callTail = seen.slice(-16);
  }

  /** Shown in an empty view until its first turn. */
  setWelcome(welcome: HTMLElement): void {
    this.welcome = welcome;
    if (!this.root.querySelector(".turn")) this.root.prepend(welcome);
  }

  /** Empty the view (another conversation is opening). */
  clear(): void {
    this.root.replaceChildren(...(this.welcome ? [this.welcome] : []));
    this.turnElement = null;
    this.liveText = null;
    this.liveOutputs.clear();
  }

  /** A saved conversation as it was shown: its turns, code and results. */
  showTranscript(transcript: Transcript): void {
    for (const turn of transcript.turns) {
      this.startTurn(turn.role === "user" ? turn : { ...turn, parts: [] }); // draws a user's text
      for (const part of turn.parts) {
        if (part.kind === "text" && turn.role === "model")
          this.container().append(h("div", { class: "model-text" }, renderMarkdown(part.text)));
        else if (part.kind === "executable_code") this.showCode(part.callId, part.code);
        else if (part.kind === "code_execution_result") this.placeResult(part.callId, part.result);
      }
      if (turn.role === "model" && turn.ungrounded?.length) this.showUngrounded(turn.ungrounded);
    }
    // A run the page was closed during has no result.
    for (const live of this.liveOutputs.values())
      live.replaceWith(h("p", { class: "note" }, "This run did not finish before the page closed."));
    this.liveOutputs.clear();
    this.turnElement = null;
  }

  /** Console runs share the view: the code, then its result. */
  showConsoleRun(callId: string, code: string): void {
    expectCharts(code, this.root);
    this.startTurn({ role: "user", parts: [], at: new Date().toISOString() });
    this.showCode(callId, code);
  }

  /** A run's result, as it comes: a run that imported a chart library readies its chart frame. */
  showResult(callId: string, result: ExecutionResult): void {
    this.placeResult(callId, result);
    expectChartsAfter(result, this.root);
  }

  private placeResult(callId: string, result: ExecutionResult): void {
    const view = renderResult(result, this.download);
    view.dataset.callId = callId; // "Run all" finds a cell's result by it (ui/replay-marks.ts)
    const live = this.liveOutputs.get(callId);
    if (live) live.replaceWith(view);
    else this.container().append(view);
    this.liveOutputs.delete(callId);
    this.liveText = null;
    this.scroll();
  }

  /** Mark the answer's numbers no run computed, and say so under it. */
  private showUngrounded(numbers: string[]): void {
    this.settle();
    const answers = this.container().querySelectorAll<HTMLElement>(".model-text");
    const answer = answers[answers.length - 1];
    if (answer) markUngrounded(answer, numbers);
    this.note(ungroundedNote(numbers), "error");
  }

  note(text: string, kind: "note" | "error" = "note"): void {
    // Text after a note is a new reply: it starts its own block below the note.
    this.settle();
    this.liveText = null;
    this.container().append(h("p", { class: kind, role: kind === "error" ? "alert" : undefined }, text));
    this.scroll();
  }

  private startTurn(turn: Turn): void {
    this.welcome?.remove();
    const label = turn.role === "user" ? "You" : "Assistant";
    this.turnElement = h("article", { class: `turn ${turn.role}`, "aria-label": label });
    this.root.append(this.turnElement);
    this.liveText = null;
    for (const part of turn.parts)
      if (part.kind === "text") this.turnElement.append(h("p", { class: "user-text" }, part.text));
    this.scroll();
  }

  private container(): HTMLElement {
    if (!this.turnElement) this.startTurn({ role: "model", parts: [], at: "" });
    return this.turnElement as HTMLElement;
  }

  private appendText(text: string): void {
    if (!this.liveText) {
      this.liveText = { element: h("div", { class: "model-text" }), text: "", pending: false };
      this.container().append(this.liveText.element);
    }
    const live = this.liveText;
    live.text += text;
    if (live.pending) return;
    live.pending = true;
    // Re-render the markdown at most once a frame however fast tokens arrive.
    requestAnimationFrame(() => this.render(live));
  }

  /** Render streamed text still waiting for its frame. */
  settle(): void {
    if (this.liveText?.pending) this.render(this.liveText);
  }

  private render(live: LiveText): void {
    if (!live.pending) return;
    live.pending = false;
    // A model that writes its code as text names the chart library while it streams: the chart
    // frame starts then, long before the run's result comes.
    expectCharts(live.text, this.root);
    live.element.replaceChildren(renderMarkdown(live.text));
    this.scroll();
  }

  private showCode(callId: string, code: string, form?: string): void {
    this.liveText = null;
    const live = h("pre", { class: "stream live", "aria-label": "running", "aria-busy": "true" });
    this.liveOutputs.set(callId, live);
    const block = codeBlock(code, "code");
    // Which reply form the call came in (tool_calls, hermes, fenced-json…), for bench-agent and debugging.
    if (form) block.dataset.form = form;
    this.container().append(block, live);
    this.scroll();
  }

  /**
   * The running code called input(): a line to type in, under its output so far (which ends with
   * the prompt). Enter sends it; the run echoes it into its output. Stopping the run ends the input.
   */
  askInput(callId: string, prompt: string, signal: AbortSignal): Promise<string | null> {
    const live = this.liveOutputs.get(callId);
    if (!live) return Promise.resolve(null);
    const line = askLine(live, prompt, signal);
    this.scroll();
    return line;
  }

  private appendOutput(callId: string, stream: string, text: string): void {
    const live = this.liveOutputs.get(callId);
    if (!live) return;
    live.append(h("span", { class: stream }, text));
    this.scroll();
  }

  private scroll(): void {
    this.root.scrollTop = this.root.scrollHeight;
  }
}
