// The Vega-Lite chart frame's script: vega-embed with Vega's expression interpreter (no eval, so
// the frame's policy needs no 'unsafe-eval') and a loader that loads nothing: a spec's data URLs,
// images and `href`s are refused (its inline data is all it has).
import vegaEmbed from "vega-embed";
import { expressionInterpreter } from "vega-interpreter";
import { serveCharts, withoutLinks } from "./frame-side.js";

const refuse = (): Promise<never> =>
  Promise.reject(new Error("a chart's data comes with its spec: URLs are not loaded here"));
const loader = { load: refuse, sanitize: refuse, http: refuse, file: refuse };

serveCharts(async (root, spec) => {
  const result = await vegaEmbed(root, withoutLinks(spec) as object, {
    actions: false,
    ast: true,
    expr: expressionInterpreter,
    loader: loader as never,
    renderer: "svg",
  });
  await result.view.runAsync();
});
