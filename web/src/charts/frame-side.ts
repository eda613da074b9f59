// Runs inside a chart frame (an opaque-origin <iframe sandbox="allow-scripts"> whose policy allows
// no network): takes the one spec the host page posts, draws it, and reports back its height.
// The spec is data written by untrusted code, so whatever could leave the frame is removed
// before drawing: links (their targets would navigate the frame) and URLs to load data from.

export type Draw = (root: HTMLElement, spec: unknown) => Promise<void>;

/** How a frame draws: `warm`, asked of a spare frame before any spec, readies what a draw reuses;
 * `unsupported` says why this frame's library cannot draw a spec (parsed, and as its JSON text),
 * so the page draws it with another, or returns null. */
export interface Renderer {
  draw: Draw;
  warm?: (root: HTMLElement) => Promise<void>;
  unsupported?: (spec: unknown, text: string) => string | null;
}

/** Messages the frame sends its host; the host checks they come from this frame's window. */
export interface ChartFrameMessage {
  wasmboxChart: "rendered" | "failed" | "height" | "unsupported";
  height?: number;
  message?: string;
}

const tell = (message: ChartFrameMessage): void => parent.postMessage(message, "*");

const holdsText = (item: unknown): boolean => typeof item === "string" || (item !== null && typeof item === "object");

/** Anchor tags in pseudo-HTML text lose their tags and keep their words. */
export function withoutLinks(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/<\/?a\b[^>]*>/gi, "");
  // A column of numbers (most of a large figure) holds no text: kept as it is, not copied.
  if (Array.isArray(value)) return value.some(holdsText) ? value.map(withoutLinks) : value;
  if (value && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[key] = withoutLinks(item);
    return copy;
  }
  return value;
}

/** Resolves after the page has painted what was drawn (the frame after the next animation frame),
 * or after a second where the browser paints nothing (a frame out of sight is not painted). */
function painted(): Promise<void> {
  return new Promise((resolve) => {
    const done = setTimeout(resolve, 1000);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(done);
        resolve();
      }, 0),
    );
  });
}

export function serveCharts(renderer: Renderer | Draw): void {
  const { draw, warm, unsupported }: Renderer = typeof renderer === "function" ? { draw: renderer } : renderer;
  // Nothing in a chart may navigate the frame, whatever a renderer made of the spec.
  document.addEventListener(
    "click",
    (e) => {
      if (e.target instanceof Element && e.target.closest("a")) e.preventDefault();
    },
    true,
  );
  performance.mark("wasmbox:chart-frame-library"); // the library has run
  // Each makes plotly lay its chart out again (`responsive`): `make bench-app` counts them.
  window.addEventListener("resize", () => performance.mark("wasmbox:chart-frame-resize"));
  const root = document.getElementById("chart")!;
  let drawn = false;
  let warming: Promise<void> = Promise.resolve();
  window.addEventListener("message", (event) => {
    if (event.source !== parent || drawn) return;
    if (event.data?.warm === true && warm) {
      // Out of sight until the spec's own drawing replaces it; a failure only costs the head start.
      root.style.visibility = "hidden";
      warming = warm(root).then(
        () => void performance.mark("wasmbox:chart-frame-warmed"),
        () => undefined,
      );
      return;
    }
    if (typeof event.data?.spec !== "string") return;
    drawn = true;
    performance.mark("wasmbox:chart-frame-spec"); // these marks: `make bench-app`
    void (async () => {
      try {
        const spec: unknown = JSON.parse(event.data.spec);
        const lacking = unsupported?.(spec, event.data.spec);
        if (lacking) {
          tell({ wasmboxChart: "unsupported", message: lacking });
          return;
        }
        await warming;
        // Drawn at the width the frame has in its figure, which a frame just moved there may
        // learn only later: it then keeps the chart as drawn.
        const width = event.data.width;
        if (typeof width === "number" && width > 0 && width < 10_000) root.style.width = `${width}px`;
        await draw(root, spec);
        performance.mark("wasmbox:chart-frame-drawn");
        root.style.visibility = "";
        await painted();
        root.style.width = "";
        performance.mark("wasmbox:chart-frame-painted");
        new ResizeObserver(() => tell({ wasmboxChart: "height", height: document.body.scrollHeight })).observe(
          document.body,
        );
        tell({ wasmboxChart: "rendered", height: document.body.scrollHeight });
      } catch (error) {
        tell({ wasmboxChart: "failed", message: String((error as Error)?.message ?? error).slice(0, 500) });
      }
    })();
  });
}
