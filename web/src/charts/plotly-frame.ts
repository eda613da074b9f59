// The plotly chart frame's script: plotly.js's core (scatter) and the trace types most figures use,
// bundled from plotly.js's own modules, so a new frame has far less code to start than the full
// library's. scattergl is plotly.express's scatter and line past 1,000 points; its strict module
// draws with shaders compiled ahead of time (no eval). A figure with any other trace type is
// refused by the frame, and the page draws it with the full library (plotly-full-frame.ts).
import Plotly from "plotly.js/lib/core";
import bar from "plotly.js/lib/bar";
import box from "plotly.js/lib/box";
import contour from "plotly.js/lib/contour";
import heatmap from "plotly.js/lib/heatmap";
import histogram from "plotly.js/lib/histogram";
import histogram2d from "plotly.js/lib/histogram2d";
import histogram2dcontour from "plotly.js/lib/histogram2dcontour";
import image from "plotly.js/lib/image";
import pie from "plotly.js/lib/pie";
import violin from "plotly.js/lib/violin";
import scattergl from "plotly.js/src/traces/scattergl/strict";
import { servePlotly } from "./plotly-draw.js";

const traces = [bar, box, contour, heatmap, histogram, histogram2d, histogram2dcontour, image, pie, violin, scattergl];
Plotly.register(traces);
servePlotly(Plotly, new Set(["scatter", ...traces.map((trace) => trace.name)]));
