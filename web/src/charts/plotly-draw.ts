// How a plotly chart frame draws one figure with every way out turned off, whichever plotly.js
// library the frame holds (plotly-frame.ts: the trace types most figures use; plotly-full-frame.ts:
// all of them). Both are plotly.js's strict code: no eval, so the frame's policy needs no
// 'unsafe-eval'.
import { serveCharts, withoutLinks } from "./frame-side.js";
import { unsupported } from "./plotly-support.js";

/** The plotly.js functions a frame uses. */
export interface PlotlyLibrary {
  newPlot(root: HTMLElement, data: unknown[], layout: object, config: object): Promise<unknown>;
  react(root: HTMLElement, data: unknown[], layout: object, config: object): Promise<unknown>;
  Plots: { resize(root: HTMLElement): Promise<unknown> };
}

/** What plotly keeps on its plot's element: the size it last laid the chart out at. */
type Plotted = HTMLElement & { _fullLayout?: { width?: number; height?: number } };

interface Figure {
  data?: unknown[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

// The same for every figure: a warmed frame's plot keeps it, so `Plotly.react` redraws in place.
const CONFIG = {
  // The frame follows its size itself (`followSize`): plotly's own handler lays the chart out
  // again after every window resize, even one that leaves the chart's size as it was.
  responsive: false,
  editable: false,
  displaylogo: false,
  showLink: false,
  sendData: false,
  showSendToCloud: false,
  showEditInChartStudio: false,
  linkText: "",
  topojsonURL: "",
  // WebGL traces drawn at the screen's own density: plotly's default, 2, draws four times the
  // pixels a 1x screen shows, which software WebGL (no GPU) pays for on every chart.
  plotGlPixelRatio: Math.min(Math.max(window.devicePixelRatio || 1, 1), 4),
};

// Two points in the shape plotly.py sends a figure in: numpy columns as typed arrays, titles, a
// hover template and a template whose axes push the margins. A spare frame's first drawing then
// runs the code a real figure's drawing needs, not only the WebGL context's start.
const ZERO_ONE = { dtype: "f8", bdata: "AAAAAAAAAAAAAAAAAADwPw==" }; // [0, 1] as little-endian float64
const AXIS_TEMPLATE = {
  automargin: true,
  gridcolor: "#fff",
  linecolor: "#fff",
  ticks: "",
  title: { standoff: 10 },
  zerolinecolor: "#fff",
  zerolinewidth: 2,
};
const WARM_FIGURE = {
  data: [
    {
      type: "scattergl",
      mode: "markers",
      x: ZERO_ONE,
      y: ZERO_ONE,
      xaxis: "x",
      yaxis: "y",
      name: "",
      legendgroup: "",
      showlegend: false,
      marker: { color: "#4c6ef5", symbol: "circle" },
      hovertemplate: "x=%{x}<br>y=%{y}<extra></extra>",
    },
  ],
  layout: {
    title: { text: "warm" },
    xaxis: { anchor: "y", domain: [0, 1], title: { text: "x" } },
    yaxis: { anchor: "x", domain: [0, 1], title: { text: "y" } },
    legend: { tracegroupgap: 0 },
    template: {
      data: { scattergl: [{ type: "scattergl", marker: { colorbar: { outlinewidth: 0, ticks: "" } } }] },
      layout: {
        colorway: ["#4c6ef5", "#f03e3e"],
        font: { color: "#222" },
        hovermode: "closest",
        hoverlabel: { align: "left" },
        paper_bgcolor: "#fff",
        plot_bgcolor: "#eef",
        title: { x: 0.05 },
        xaxis: AXIS_TEMPLATE,
        yaxis: AXIS_TEMPLATE,
      },
    },
  },
};

/**
 * Lay the chart in `root` out again once the frame's size has settled (100 ms after its last
 * window resize, as plotly's own handler waits) and only when `root` is no longer the size the
 * chart was laid out at. A spare frame moved into its figure, or given the chart's height by the
 * page, gets a resize that changes nothing for the chart, which is drawn at its final width.
 */
function followSize(Plotly: PlotlyLibrary, root: Plotted): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener("resize", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const laidOut = root._fullLayout;
      if (!laidOut || root.style.visibility === "hidden") return;
      if (laidOut.width === root.clientWidth && laidOut.height === root.clientHeight) return;
      performance.mark("wasmbox:chart-frame-relayout"); // `make bench-app` counts them
      Plotly.Plots.resize(root).catch(() => undefined); // a plot not shown is not resized
    }, 100);
  });
}

/** Serve charts drawn with `Plotly`, which holds the trace types `traces` (null: all of them). */
export function servePlotly(Plotly: PlotlyLibrary, traces: ReadonlySet<string> | null): void {
  let warmed = false;
  followSize(Plotly, document.getElementById("chart")!);

  /** A spare frame draws WARM_FIGURE before any spec: its first drawing (the library's code
   * compiled, the WebGL context and its shaders made) is then off the next chart's path, which
   * `Plotly.react` draws into the same plot (an SVG figure replaces the WebGL layer). */
  async function warm(root: HTMLElement): Promise<void> {
    root.style.height = "450px";
    await Plotly.newPlot(root, WARM_FIGURE.data, { ...WARM_FIGURE.layout, autosize: true }, CONFIG);
    warmed = true;
  }

  async function draw(root: HTMLElement, spec: unknown): Promise<void> {
    const figure = withoutLinks(spec) as Figure;
    const layout: Record<string, unknown> = { ...figure.layout, autosize: true };
    delete layout.images; // layout images are URLs the frame would fetch
    // The frame takes the height of what it shows: the figure's own, or plotly's default.
    const height = typeof layout.height === "number" && layout.height > 0 ? Math.min(layout.height, 4000) : 450;
    root.style.height = `${height}px`;
    const config = { ...figure.config, ...CONFIG };
    if (warmed) await Plotly.react(root, figure.data ?? [], layout, config);
    else await Plotly.newPlot(root, figure.data ?? [], layout, config);
  }

  serveCharts({
    draw,
    warm,
    unsupported: traces ? (spec, text) => unsupported(spec, text, traces) : undefined,
  });
}
