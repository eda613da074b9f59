// The full plotly chart frame's script: plotly.js's strict dist, every trace type. A page starts it
// only for a figure the smaller frame (plotly-frame.ts) says it cannot draw.
import Plotly from "plotly.js-strict-dist-min";
import { servePlotly } from "./plotly-draw.js";

servePlotly(Plotly, null);
