// An interactive chart (plotly or Vega-Lite): drawn in an <iframe sandbox="allow-scripts">, an
// opaque origin that cannot touch this page, whose policy allows no network and only the chart
// library's own script, inlined by hash. The library is fetched from this origin the first time a
// chart appears, once per page; the spec is posted in as data (web/src/charts/frame-side.ts).
// Starting the library in a new frame costs far more than drawing most charts, so once a chart of
// a kind is drawn, a hidden frame of that kind is started while the page is idle and the next
// chart moves it into place, where the browser can move a frame without reloading it. A plotly
// figure goes to a frame holding the trace types most figures use; one it refuses is drawn with
// the full library, which the page then keeps using for its plotly charts.
import { Sandbox } from "wasmbox";
import { h } from "./dom.js";

interface ChartBundle {
  file: string;
  sha256: string;
  bytes: number;
}
type Renderer = "plotly" | "vega";
type Bundle = Renderer | "plotly-full";

// Set at build time (scripts/build-web.mjs): the bundles' file names and CSP hashes, and where
// they are relative to this script (the app's and the embed's differ).
declare const __WASMBOX_CHARTS__: Record<Bundle, ChartBundle>;
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

// The library a plotly figure goes to: the smaller one until a figure needs the full one.
let plotlyBundle: Bundle = "plotly";
const bundleFor = (renderer: Renderer): Bundle => (renderer === "plotly" ? plotlyBundle : renderer);

const scripts = new Map<Bundle, Promise<string>>();

function chartScript(bundle: Bundle): Promise<string> {
  let script = scripts.get(bundle);
  if (!script) {
    const url = new URL(__WASMBOX_CHARTS_BASE__ + __WASMBOX_CHARTS__[bundle].file, import.meta.url);
    script = fetch(url).then(async (response) => {
      if (!response.ok) throw new Error(`the ${bundle} chart library did not load (${response.status})`);
      const text = await response.text();
      if (/<\/script|<!--/i.test(text)) throw new Error("the chart library cannot be inlined");
      return text;
    });
    script.catch(() => scripts.delete(bundle)); // a failure is not remembered
    scripts.set(bundle, script);
  }
  return script;
}

function frameDocument(bundle: Bundle, script: string): string {
  return [
    "<!doctype html>",
    `<meta http-equiv="Content-Security-Policy" content="${chartPolicy(__WASMBOX_CHARTS__[bundle].sha256)}">`,
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

function newFrame(bundle: Bundle, title: string): HTMLIFrameElement {
  const frame = h("iframe", {
    sandbox: "allow-scripts",
    title,
    referrerpolicy: "no-referrer",
    loading: "eager",
  });
  frame.dataset.bundle = bundle;
  return frame;
}

/** Resolves once `frame`'s document (the library) has run; `start` then sets it going. */
function loaded(frame: HTMLIFrameElement, script: string): Promise<void> {
  const done = new Promise<void>((resolve) => frame.addEventListener("load", () => resolve(), { once: true }));
  frame.srcdoc = frameDocument(frame.dataset.bundle as Bundle, script);
  return done;
}

interface Spare {
  frame: HTMLIFrameElement;
  ready: Promise<void>;
  taken: boolean;
}
const spares = new Map<Bundle, Spare>();
// The last drawn chart frame's width, and each kind's height, in CSS pixels: a spare is laid out
// at them. Before any chart of a kind, plotly's: a figure without a height of its own is drawn
// 450 pixels tall, which the frame then reports.
let chartWidth = 0;
const chartHeights = new Map<Bundle, number>([
  ["plotly", 450],
  ["plotly-full", 450],
]);
type Movable = ParentNode & { moveBefore?(node: Node, child: Node | null): void };
const canMove = typeof Element !== "undefined" && "moveBefore" in Element.prototype;

/** Where a spare frame for a chart shown in `near` lives: its document's body or its shadow root. */
function homeOf(near: Node): ParentNode | null {
  const root = near.getRootNode();
  return root instanceof ShadowRoot ? root : root instanceof Document ? root.body : null;
}

/** Start a hidden frame of `bundle` in `near`'s document (or shadow root) now, unless one is
 * there: laid out at `width`, the width the chart that takes it is expected to have. */
function startSpare(bundle: Bundle, near: Node, width: number, script: string): void {
  const home = homeOf(near);
  if (!canMove || !home || spares.get(bundle)?.frame.isConnected) return;
  performance.mark("wasmbox:chart-spare-started");
  const frame = newFrame(bundle, "");
  // Out of sight but laid out at a chart's width, so the chart it draws needs no second layout.
  const height = chartHeights.get(bundle) ?? 460;
  // Without a border, as in its figure: a border would make its window smaller there than here.
  frame.style.cssText = `position:fixed;left:-300vw;top:0;width:${width}px;height:${height}px;border:0;visibility:hidden`;
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
  spares.set(bundle, spare);
}

/** After a chart of `bundle` is drawn in `frame`: a spare for the next one, once the page is idle. */
function prepareSpare(bundle: Bundle, frame: HTMLIFrameElement, script: string): void {
  if (!canMove) return;
  chartWidth = frame.clientWidth || chartWidth;
  if (frame.clientHeight) chartHeights.set(bundle, frame.clientHeight);
  const start = (): void => startSpare(bundle, frame, chartWidth, script);
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
  for (const [named, renderer] of LIBRARIES) if (named.test(code)) expectChart(renderer, near);
}

// The chart libraries' top-level modules, as a result's `audit.importedModules` names them. No
// prototype: a module the user named `constructor` is not a chart library.
const IMPORTED: Readonly<Record<string, Renderer>> = Object.assign(Object.create(null), {
  plotly: "plotly",
  altair: "vega",
});

interface ShownResult {
  displays: ReadonlyArray<{ mime: string }>;
  value?: Readonly<Record<string, unknown>> | null;
  audit?: { importedModules?: readonly string[] };
}

/**
 * `result` is shown in `near`'s document. A run that imported a chart library but showed no chart
 * of it (`import plotly.express as px` in a first cell) makes a later chart likely: that kind's
 * spare frame starts now, so its library runs by the time a later run's chart comes, whatever that
 * run's code names. A run that showed such a chart prepares the next spare once it is drawn.
 */
export function expectChartsAfter(result: ShownResult, near: Element): void {
  const mimes = [...result.displays.map((display) => display.mime), ...Object.keys(result.value ?? {})];
  const shown = new Set(mimes.map((mime) => RENDERERS[mime]));
  for (const module of result.audit?.importedModules ?? []) {
    const renderer = IMPORTED[module];
    if (renderer && !shown.has(renderer)) expectChart(renderer, near);
  }
}

/**
 * A run whose result will show in `near`'s document has just imported `module` (the sandbox says
 * so during the run, `ExecuteOptions.onImport`): a chart library's spare frame starts now, as it
 * does for a run whose code names the library, though this run's code may not name it.
 */
export function expectImported(module: string, near: Element): void {
  const renderer = IMPORTED[module];
  if (renderer) expectChart(renderer, near);
}

/** Fetch `renderer`'s library and start its spare frame in `near`'s document, unless one is there. */
function expectChart(renderer: Renderer, near: Element): void {
  const bundle = bundleFor(renderer);
  void chartScript(bundle).then(
    (script) => startSpare(bundle, near, chartWidth || Math.min(near.clientWidth, 960) || 600, script),
    () => undefined, // the chart, if one comes, says why
  );
}

/** The spare frame of `bundle`, moved before `place`, or null where there is none to move. */
function takeSpare(bundle: Bundle, place: Element): Spare | null {
  const spare = spares.get(bundle);
  const parent = place.parentNode as Movable | null;
  if (!spare || !spare.frame.isConnected || !place.isConnected || !parent?.moveBefore) return null;
  spares.delete(bundle);
  spare.taken = true;
  try {
    parent.moveBefore(spare.frame, place);
  } catch {
    spare.frame.remove(); // a move the browser refused (another root): the next chart starts afresh
    return null;
  }
  // It keeps the height it was laid out at: a frame whose size changes gets a window `resize`,
  // after which plotly lays the chart out again. The chart's own height replaces it once drawn.
  spare.frame.style.cssText = `height:${spare.frame.style.height}`;
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
  // Until the chart is painted, the page's background work (runtime files kept for the next
  // visit, a spare sandbox's refill) waits: it would take the page's main thread, which hears
  // "rendered", and the CPU the frame draws and paints with.
  let settle = (): void => undefined;
  Sandbox.busyWhile(new Promise<void>((resolve) => (settle = resolve)));
  const fail = (message: string): void => {
    settle();
    figure.dataset.state = "failed";
    status.textContent = `The chart could not be drawn: ${message}`;
  };
  const draw = (frame: HTMLIFrameElement, ready: Promise<void>, script: string, bundle: Bundle): void => {
    listen(frame, (data) => {
      frame.dataset.seen = "1";
      if (typeof data.height === "number" && data.height > 0) frame.style.height = `${Math.min(data.height, 4000)}px`;
      if (data.wasmboxChart === "rendered") {
        figure.dataset.state = "rendered";
        status.remove();
        settle();
        performance.mark("wasmbox:chart-rendered");
        prepareSpare(bundle, frame, script);
      } else if (data.wasmboxChart === "unsupported" && bundle === "plotly") {
        // A trace type the smaller library lacks: this chart and the page's later ones go to the
        // full library; the smaller one's frames are let go.
        plotlyBundle = "plotly-full";
        frame.remove();
        spares.get(bundle)?.frame.remove();
        spares.delete(bundle);
        start("plotly-full");
      } else if (data.wasmboxChart === "failed" || data.wasmboxChart === "unsupported") {
        fail(String(data.message ?? "unknown error").slice(0, 500));
      }
    });
    // With the width it has in place: a frame just moved may not know its new size yet, and a
    // chart drawn at another width would be drawn again once it does.
    void ready.then(() => frame.contentWindow?.postMessage({ spec, width: frame.clientWidth }, "*"));
  };
  // The figure is in the page by the time the library's promise settles: a spare can move in.
  const start = (bundle: Bundle): void =>
    void chartScript(bundle).then(
      (script) => {
        const spare = takeSpare(bundle, status);
        if (spare) {
          spare.frame.title = title;
          draw(spare.frame, spare.ready, script, bundle);
          return;
        }
        const frame = newFrame(bundle, title);
        figure.insertBefore(frame, status);
        draw(frame, loaded(frame, script), script, bundle);
      },
      (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
    );
  start(bundleFor(renderer));
  return figure;
}
