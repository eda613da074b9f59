// plotly.js ships no types for its dist or its modules; the chart frames use these.
declare module "plotly.js-strict-dist-min" {
  const Plotly: import("./plotly-draw.js").PlotlyLibrary;
  export default Plotly;
}
declare module "plotly.js/lib/core" {
  const Plotly: import("./plotly-draw.js").PlotlyLibrary & { register(modules: unknown[]): void };
  export default Plotly;
}
// A trace type's module: what `Plotly.register` takes, named by its trace type.
declare module "plotly.js/lib/*" {
  const trace: { name: string };
  export default trace;
}
declare module "plotly.js/src/traces/scattergl/strict" {
  const trace: { name: string };
  export default trace;
}
