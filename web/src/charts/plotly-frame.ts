// The plotly chart frame's script: plotly.js's strict build (no eval, so the frame's policy
// needs no 'unsafe-eval') and the drawing of one figure with every way out turned off.
import Plotly from "plotly.js-strict-dist-min";
import { serveCharts, withoutLinks } from "./frame-side.js";

interface Figure {
  data?: unknown[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

serveCharts(async (root, spec) => {
  const figure = withoutLinks(spec) as Figure;
  const layout: Record<string, unknown> = { ...figure.layout, autosize: true };
  delete layout.images; // layout images are URLs the frame would fetch
  // The frame takes the height of what it shows: the figure's own, or plotly's default.
  const height = typeof layout.height === "number" && layout.height > 0 ? Math.min(layout.height, 4000) : 450;
  root.style.height = `${height}px`;
  await Plotly.newPlot(root, figure.data ?? [], layout, {
    ...figure.config,
    responsive: true,
    editable: false,
    displaylogo: false,
    showLink: false,
    sendData: false,
    showSendToCloud: false,
    showEditInChartStudio: false,
    linkText: "",
    topojsonURL: "",
  });
});
