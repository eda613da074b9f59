// An interactive chart (plotly or Vega-Lite): drawn in an <iframe sandbox="allow-scripts">, an
// opaque origin that cannot touch this page, whose policy allows no network and only the chart
// library's own script, inlined by hash. The library is fetched from this origin the first time a
// chart appears, once per page; the spec is posted in as data (web/src/charts/frame-side.ts).
import { h } from "./dom.js";

interface ChartBundle {
  file: string;
  sha256: string;
  bytes: number;
}
type Renderer = "plotly" | "vega";

// Set at build time (scripts/build-web.mjs): the bundles' file names and CSP hashes, and where
// they are relative to this script (the app's and the embed's differ).
declare const __WASMBOX_CHARTS__: Record<Renderer, ChartBundle>;
declare const __WASMBOX_CHARTS_BASE__: string;

const RENDERERS: Readonly<Record<string, Renderer>> = {
  "application/vnd.plotly.v1+json": "plotly",
  "application/vnd.vegalite.v5+json": "vega",
};

export const isChartMime = (mime: string): boolean => mime in RENDERERS;

/** The frame's own policy; the page's policy (which a srcdoc inherits) must allow the hash too. */
export function chartPolicy(sha256: string): string {
  return [
    "default-src 'none'",
    `script-src 'sha256-${sha256}'`,
    "style-src 'unsafe-inline'",
    "img-src data: blob:",
    "font-src data:",
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

const scripts = new Map<Renderer, Promise<string>>();

function chartScript(renderer: Renderer): Promise<string> {
  let script = scripts.get(renderer);
  if (!script) {
    const url = new URL(__WASMBOX_CHARTS_BASE__ + __WASMBOX_CHARTS__[renderer].file, import.meta.url);
    script = fetch(url).then(async (response) => {
      if (!response.ok) throw new Error(`the ${renderer} chart library did not load (${response.status})`);
      const text = await response.text();
      if (/<\/script|<!--/i.test(text)) throw new Error("the chart library cannot be inlined");
      return text;
    });
    script.catch(() => scripts.delete(renderer)); // a failure is not remembered
    scripts.set(renderer, script);
  }
  return script;
}

function frameDocument(renderer: Renderer, script: string): string {
  return [
    "<!doctype html>",
    `<meta http-equiv="Content-Security-Policy" content="${chartPolicy(__WASMBOX_CHARTS__[renderer].sha256)}">`,
    '<meta name="referrer" content="no-referrer">',
    "<style>html,body{margin:0;background:#fff;color:#111;font:13px system-ui,sans-serif}" +
      "#chart{width:100%;min-height:60px}</style>",
    '<div id="chart"></div>',
    `<script>${script}</script>`,
  ].join("\n");
}

type Listener = (data: { wasmboxChart?: unknown; height?: unknown; message?: unknown }) => void;
const listeners = new Map<HTMLIFrameElement, Listener>();

function listen(frame: HTMLIFrameElement, listener: Listener): void {
  if (listeners.size === 0) {
    window.addEventListener("message", (event) => {
      for (const [candidate, handle] of listeners) {
        if (!candidate.isConnected && candidate.dataset.seen) listeners.delete(candidate);
        else if (event.source && event.source === candidate.contentWindow) handle(event.data ?? {});
      }
    });
  }
  listeners.set(frame, listener);
}

/** A figure whose frame draws `spec`; `caption` (the text fallback) says what it shows. */
export function renderChart(mime: string, spec: string, caption = ""): HTMLElement {
  performance.mark("wasmbox:chart-requested"); // `make bench-app`: from here to chart-rendered
  const renderer = RENDERERS[mime]!;
  const frame = h("iframe", {
    sandbox: "allow-scripts",
    title: caption || "interactive chart",
    referrerpolicy: "no-referrer",
    loading: "eager",
  });
  const status = h("p", { class: "note chart-status", role: "status" }, "Loading the chart…");
  const figure = h(
    "figure",
    { class: "chart", "data-renderer": renderer, "data-state": "loading" },
    frame,
    status,
    caption ? h("figcaption", {}, caption) : null,
  );
  const fail = (message: string): void => {
    figure.dataset.state = "failed";
    status.textContent = `The chart could not be drawn: ${message}`;
  };
  listen(frame, (data) => {
    frame.dataset.seen = "1";
    if (typeof data.height === "number" && data.height > 0) frame.style.height = `${Math.min(data.height, 4000)}px`;
    if (data.wasmboxChart === "rendered") {
      figure.dataset.state = "rendered";
      status.remove();
      performance.mark("wasmbox:chart-rendered");
    } else if (data.wasmboxChart === "failed") {
      fail(String(data.message ?? "unknown error").slice(0, 500));
    }
  });
  void chartScript(renderer).then(
    (script) => {
      frame.addEventListener("load", () => frame.contentWindow?.postMessage({ spec }, "*"), { once: true });
      frame.srcdoc = frameDocument(renderer, script);
    },
    (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
  );
  return figure;
}
