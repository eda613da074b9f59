// The plotly chart frame's script: plotly.js's strict build (no eval, so the frame's policy
// needs no 'unsafe-eval') and the drawing of one figure with every way out turned off.
import Plotly from "plotly.js-strict-dist-min";
import { serveCharts, withoutLinks } from "./frame-side.js";

interface Figure {
  data?: unknown[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

// The same for every figure: a warmed frame's plot keeps it, so `Plotly.react` redraws in place.
const CONFIG = {
  responsive: true,
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

let warmed = false;

/** A spare frame draws two WebGL points before any spec: its first drawing (the library's code
 * compiled, the WebGL context and its shaders made) is then off the next chart's path, which
 * `Plotly.react` draws into the same plot (an SVG figure replaces the WebGL layer). */
async function warm(root: HTMLElement): Promise<void> {
  root.style.height = "450px";
  await Plotly.newPlot(
    root,
    [{ type: "scattergl", mode: "markers", x: [0, 1], y: [0, 1] }],
    { autosize: true },
    CONFIG,
  );
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

serveCharts({ draw, warm });
