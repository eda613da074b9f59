// "Run all" in the log: each replayed cell's new result takes the recorded one's place, marked
// "same" or "differs" in words (the recorded one stays one click away), and cells it did not reach
// say why. Results are found by the call id ChatView gives their section.
import type { ReplayedRun } from "wasmbox";
import { h } from "./dom.js";
import { renderResult, type DownloadFn } from "./result-view.js";

export type MarkKind = "same" | "differs" | "not-run";

const MARKS: Record<MarkKind, [symbol: string, text: string]> = {
  same: ["✓", "Same output as recorded"],
  differs: ["≠", "Output differs from the recorded run"],
  "not-run": ["–", "Not run: an earlier cell failed where the recorded run did not"],
};

export function replayMark(kind: MarkKind): HTMLElement {
  const [symbol, text] = MARKS[kind];
  return h("p", { class: `replay-mark ${kind}` }, h("span", { "aria-hidden": "true" }, `${symbol} `), text);
}

export class ReplayMarks {
  constructor(
    private readonly root: HTMLElement,
    private readonly download: DownloadFn,
  ) {}

  private section(callId: string): HTMLElement | null {
    return this.root.querySelector<HTMLElement>(`.result[data-call-id="${CSS.escape(callId)}"]`);
  }

  running(callId: string): void {
    const section = this.section(callId);
    if (!section) return;
    section.setAttribute("aria-busy", "true");
    section.classList.add("replaying");
    section.scrollIntoView({ block: "nearest" });
  }

  replayed(run: ReplayedRun): void {
    const recorded = this.section(run.callId);
    const fresh = renderResult(run.result, this.download);
    fresh.dataset.callId = run.callId;
    const kind = run.same ? "same" : "differs";
    fresh.dataset.replay = kind;
    const shown = h("div", { class: "replayed" }, replayMark(kind), fresh);
    if (recorded) {
      recorded.replaceWith(shown);
      recorded.removeAttribute("data-call-id");
      recorded.removeAttribute("aria-busy");
      recorded.classList.remove("replaying");
      if (!run.same) shown.append(h("details", {}, h("summary", {}, "Recorded output"), recorded));
    } else {
      this.root.append(shown);
    }
  }

  notRun(callId: string): void {
    this.section(callId)?.before(replayMark("not-run"));
  }
}
