// plotly.js's strict dist ships no types; the chart frame uses two functions.
declare module "plotly.js-strict-dist-min" {
  const Plotly: {
    newPlot(root: HTMLElement, data: unknown[], layout: object, config: object): Promise<unknown>;
    react(root: HTMLElement, data: unknown[], layout: object, config: object): Promise<unknown>;
  };
  export default Plotly;
}
