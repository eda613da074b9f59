// One run's result: outcome, output streams, value, images, tables, error, files.
import type { ExecutionResult } from "wasmbox";

type Display = ExecutionResult["displays"][number];
type MimeBundle = NonNullable<ExecutionResult["value"]>;
import { isChartMime, renderChart } from "./chart-view.js";
import { h } from "./dom.js";
import { safeHtml } from "./sanitize.js";

export type DownloadFn = (path: string) => void;

const OUTCOME_LABELS: Record<string, string> = {
  OUTCOME_OK: "ok",
  OUTCOME_FAILED: "error",
  OUTCOME_DEADLINE_EXCEEDED: "deadline exceeded",
  OUTCOME_MEMORY_EXCEEDED: "memory exceeded",
  OUTCOME_POLICY_VIOLATION: "refused by policy",
  OUTCOME_CANCELLED: "cancelled",
};

/**
 * The files a result lists as rows; the rest are counted. A run that writes thousands of files
 * would otherwise put a row for each in the transcript, and every later append lays them out.
 */
export const SHOWN_FILES = 50;

const INLINE_IMAGES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** The richest safe rendering of a MIME bundle or display. */
function renderData(mime: string, data: string, caption?: string): HTMLElement {
  if (isChartMime(mime)) return renderChart(mime, data, caption);
  if (INLINE_IMAGES.includes(mime)) {
    return h("img", { class: "plot", src: `data:${mime};base64,${data}`, alt: "figure produced by the code" });
  }
  if (mime === "image/svg+xml") {
    // An SVG as an <img> cannot run scripts or load anything.
    const src = `data:image/svg+xml;base64,${btoa(unescape(encodeURIComponent(data)))}`;
    return h("img", { class: "plot", src, alt: "figure produced by the code" });
  }
  if (mime === "text/html") {
    const box = h("div", { class: "html-output" });
    box.append(safeHtml(data));
    return box;
  }
  return h("pre", { class: "text-output" }, data);
}

function renderBundle(bundle: MimeBundle): HTMLElement {
  const chart = Object.keys(bundle).find(isChartMime);
  if (chart) return renderChart(chart, bundle[chart]!, bundle["text/plain"]);
  for (const mime of [...INLINE_IMAGES, "image/svg+xml", "text/html"]) {
    const data = bundle[mime];
    if (data !== undefined) return renderData(mime, data);
  }
  return renderData("text/plain", bundle["text/plain"] ?? "");
}

function stream(name: string, text: string): HTMLElement {
  return h("pre", { class: `stream ${name}`, "aria-label": name }, text);
}

/** Never silently different: a restart says whether the last save came back, and what did not. */
function restartText({ stateLost, stateRestored }: ExecutionResult): string {
  if (!stateLost) return "";
  if (!stateRestored) return " · sandbox restarted, variables lost";
  const when = stateRestored.whileIdle ? "restarted while idle" : "restarted";
  const lost = stateRestored.notRestored.map((v) => v.name);
  return ` · sandbox ${when}, variables restored from its last save${lost.length ? ` except ${lost.join(", ")}` : ""}`;
}

export function renderResult(result: ExecutionResult, download: DownloadFn): HTMLElement {
  const label = OUTCOME_LABELS[result.outcome] ?? result.outcome;
  const view = h(
    "section",
    { class: `result outcome-${result.outcome.toLowerCase()}`, "aria-label": `result: ${label}` },
    h(
      "p",
      { class: "result-meta" },
      h("span", { class: "badge" }, label),
      result.durationMs > 0 ? ` ${Math.round(result.durationMs)} ms` : "", // a notebook records no time
      restartText(result),
    ),
  );
  if (result.stdout) view.append(stream("stdout", result.stdout));
  if (result.stderr) view.append(stream("stderr", result.stderr));
  if (result.truncated) view.append(h("p", { class: "note" }, "Output was cut at the sandbox's limit."));
  const displays = result.displays as Display[];
  for (let i = 0; i < displays.length; i++) {
    const { mime, data } = displays[i]!;
    // A chart's text fallback follows it: it becomes the chart's caption.
    const caption = isChartMime(mime) && displays[i + 1]?.mime === "text/plain" ? displays[++i]!.data : undefined;
    view.append(renderData(mime, data, caption));
  }
  if (result.value) view.append(renderBundle(result.value));
  if (result.error) {
    view.append(
      h(
        "pre",
        { class: "traceback", "aria-label": "traceback" },
        result.error.traceback || `${result.error.name}: ${result.error.message}`,
      ),
    );
  }
  // How to repair (the kernel's hint), under the traceback; or why a run showed nothing.
  const hint = result.error?.hint ?? result.hint;
  if (hint) view.append(h("p", { class: "hint", "aria-label": "hint" }, `Hint: ${hint}`));
  if (result.files.length) {
    const list = h("ul", { class: "files", "aria-label": "files produced" });
    for (const file of result.files.slice(0, SHOWN_FILES)) {
      const button = h("button", { type: "button", class: "link" }, `⬇ ${file.path}`);
      button.addEventListener("click", () => download(file.path));
      list.append(h("li", {}, button, ` ${file.size} bytes`));
    }
    const more = result.files.length - SHOWN_FILES;
    if (more > 0) list.append(h("li", { class: "more" }, `… and ${more.toLocaleString("en")} more (see Files)`));
    view.append(list);
  }
  return view;
}
