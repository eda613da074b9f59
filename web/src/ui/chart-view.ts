// An interactive chart (plotly or Vega-Lite): drawn in an <iframe sandbox="allow-scripts">, an
// opaque origin that cannot touch this page, whose policy allows no network and only the chart
// library's own script, inlined by hash. The library is fetched from this origin the first time a
// chart appears, once per page; the spec is posted in as data (web/src/charts/frame-side.ts).
// Starting the library in a new frame costs far more than drawing most charts, so once a chart of
// a kind is drawn, a hidden frame of that kind is started while the page is idle and the next
// chart moves it into place, where the browser can move a frame without reloading it.
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

function newFrame(renderer: Renderer, title: string): HTMLIFrameElement {
  const frame = h("iframe", {
    sandbox: "allow-scripts",
    title,
    referrerpolicy: "no-referrer",
    loading: "eager",
  });
  frame.dataset.renderer = renderer;
  return frame;
}

/** Resolves once `frame`'s document (the library) has run; `start` then sets it going. */
function loaded(frame: HTMLIFrameElement, script: string): Promise<void> {
  const done = new Promise<void>((resolve) => frame.addEventListener("load", () => resolve(), { once: true }));
  frame.srcdoc = frameDocument(frame.dataset.renderer as Renderer, script);
  return done;
}

interface Spare {
  frame: HTMLIFrameElement;
  ready: Promise<void>;
  taken: boolean;
}
const spares = new Map<Renderer, Spare>();
// The last drawn chart frame's size, in CSS pixels: a spare is laid out at it.
let chartWidth = 0;
let chartHeight = 0;
type Movable = ParentNode & { moveBefore?(node: Node, child: Node | null): void };
const canMove = typeof Element !== "undefined" && "moveBefore" in Element.prototype;

/** Where a spare frame for a chart shown in `near` lives: its document's body or its shadow root. */
function homeOf(near: Node): ParentNode | null {
  const root = near.getRootNode();
  return root instanceof ShadowRoot ? root : root instanceof Document ? root.body : null;
}

/** Start a hidden frame of `renderer` in `near`'s document (or shadow root) now, unless one is
 * there: laid out at `width`, the width the chart that takes it is expected to have. */
function startSpare(renderer: Renderer, near: Node, width: number, script: string): void {
  const home = homeOf(near);
  if (!canMove || !home || spares.get(renderer)?.frame.isConnected) return;
  performance.mark("wasmbox:chart-spare-started");
  const frame = newFrame(renderer, "");
  // Out of sight but laid out at a chart's width, so the chart it draws needs no second layout.
  const height = chartHeight || 460;
  frame.style.cssText = `position:fixed;left:-300vw;top:0;width:${width}px;height:${height}px;visibility:hidden`;
  frame.setAttribute("aria-hidden", "true");
  frame.tabIndex = -1;
  home.append(frame);
  // Once its library runs, the frame draws a placeholder of its own out of sight (its first
  // drawing, the slowest), so the chart that takes it draws in place; unless a chart took it
  // while it loaded, whose own drawing then is the first.
  const spare: Spare = { frame, ready: Promise.resolve(), taken: false };
  spare.ready = loaded(frame, script).then(() => {
    if (!spare.taken) frame.contentWindow?.postMessage({ warm: true }, "*");
  });
  spares.set(renderer, spare);
}

/** After a chart of `renderer` is drawn in `frame`: a spare for the next one, once the page is idle. */
function prepareSpare(renderer: Renderer, frame: HTMLIFrameElement, script: string): void {
  if (!canMove) return;
  chartWidth = frame.clientWidth || chartWidth;
  chartHeight = frame.clientHeight || chartHeight;
  const start = (): void => startSpare(renderer, frame, chartWidth, script);
  if ("requestIdleCallback" in window) requestIdleCallback(start, { timeout: 2000 });
  else setTimeout(start, 200);
}

// The chart libraries a run's code may name, and what their charts are drawn with.
const LIBRARIES: ReadonlyArray<readonly [RegExp, Renderer]> = [
  [/\bplotly\b/, "plotly"],
  [/\baltair\b/, "vega"],
];

/**
 * A run of `code` has started and its result will show in `near`'s document. Where the code names
 * a chart library, a chart of that kind is likely: its library is fetched, and a spare frame
 * started, now, so the library starts while Python runs rather than after the result comes.
 */
export function expectCharts(code: string, near: Element): void {
  for (const [named, renderer] of LIBRARIES) {
    if (!named.test(code)) continue;
    void chartScript(renderer).then(
      (script) => startSpare(renderer, near, chartWidth || Math.min(near.clientWidth, 960) || 600, script),
      () => undefined, // the chart, if one comes, says why
    );
  }
}

/** The spare frame of `renderer`, moved before `place`, or null where there is none to move. */
function takeSpare(renderer: Renderer, place: Element): Spare | null {
  const spare = spares.get(renderer);
  const parent = place.parentNode as Movable | null;
  if (!spare || !spare.frame.isConnected || !place.isConnected || !parent?.moveBefore) return null;
  spares.delete(renderer);
  spare.taken = true;
  try {
    parent.moveBefore(spare.frame, place);
  } catch {
    spare.frame.remove(); // a move the browser refused (another root): the next chart starts afresh
    return null;
  }
  spare.frame.style.cssText = "";
  spare.frame.removeAttribute("aria-hidden");
  spare.frame.removeAttribute("tabindex");
  return spare;
}

/** A figure whose frame draws `spec`; `caption` (the text fallback) says what it shows. */
export function renderChart(mime: string, spec: string, caption = ""): HTMLElement {
  performance.mark("wasmbox:chart-requested"); // `make bench-app`: from here to chart-rendered
  const renderer = RENDERERS[mime]!;
  const title = caption || "interactive chart";
  const status = h("p", { class: "note chart-status", role: "status" }, "Loading the chart…");
  const figure = h(
    "figure",
    { class: "chart", "data-renderer": renderer, "data-state": "loading" },
    status,
    caption ? h("figcaption", {}, caption) : null,
  );
  const fail = (message: string): void => {
    figure.dataset.state = "failed";
    status.textContent = `The chart could not be drawn: ${message}`;
  };
  const draw = (frame: HTMLIFrameElement, ready: Promise<void>, script: string): void => {
    listen(frame, (data) => {
      frame.dataset.seen = "1";
      if (typeof data.height === "number" && data.height > 0) frame.style.height = `${Math.min(data.height, 4000)}px`;
      if (data.wasmboxChart === "rendered") {
        figure.dataset.state = "rendered";
        status.remove();
        performance.mark("wasmbox:chart-rendered");
        prepareSpare(renderer, frame, script);
      } else if (data.wasmboxChart === "failed") {
        fail(String(data.message ?? "unknown error").slice(0, 500));
      }
    });
    // With the width it has in place: a frame just moved may not know its new size yet, and a
    // chart drawn at another width would be drawn again once it does.
    void ready.then(() => frame.contentWindow?.postMessage({ spec, width: frame.clientWidth }, "*"));
  };
  // The figure is in the page by the time the library's promise settles: a spare can move in.
  void chartScript(renderer).then(
    (script) => {
      const spare = takeSpare(renderer, status);
      if (spare) {
        spare.frame.title = title;
        draw(spare.frame, spare.ready, script);
        return;
      }
      const frame = newFrame(renderer, title);
      figure.insertBefore(frame, status);
      draw(frame, loaded(frame, script), script);
    },
    (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
  );
  return figure;
}
