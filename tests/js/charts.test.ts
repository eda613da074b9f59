// Interactive charts: the validator's cap on a chart spec, the summary the model gets instead of
// the spec, and what the chart frame removes from a spec before drawing it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LIMITS } from "../../wasm_runtime/protocol/limits.ts";
import { parseWorkerMessage } from "../../wasm_runtime/protocol/validate.ts";
import { chartSummary } from "../../wasm_runtime/sdk/agent/chart-summary.ts";
import { withoutLinks } from "../../web/src/charts/frame-side.ts";
import { traceTypes, unsupported } from "../../web/src/charts/plotly-support.ts";
import { resultForModel } from "../../wasm_runtime/sdk/agent/model-result.ts";
import { okResult } from "./agent-support.ts";

const PLOTLY = "application/vnd.plotly.v1+json";
const VEGALITE = "application/vnd.vegalite.v5+json";
const audit = {
  codeSha256: "",
  filesRead: [],
  filesWritten: [],
  networkAttempts: [],
  importedModules: [],
  peakMemoryBytes: null,
};
const kernelResult = (displays: object[], value: object | null = null) => ({
  outcome: "OUTCOME_OK",
  stdout: "",
  stderr: "",
  truncated: false,
  value,
  displays,
  files: [],
  error: null,
  audit,
  policy: null,
});

test("a chart spec over the cap becomes a text note, and the rest of the result is kept", () => {
  const huge = `{"data":[{"y":[${"1,".repeat(LIMITS.maxChartBytes / 2)}1]}]}`;
  const displays = [
    { mime: PLOTLY, data: huge },
    { mime: "text/plain", data: "plotly figure" },
  ];
  const parsed = parseWorkerMessage({
    type: "result",
    id: 1,
    result: kernelResult(displays, { [VEGALITE]: huge, "text/plain": "v" }),
  });
  assert.ok(parsed.ok && parsed.value.type === "result");
  const result = parsed.value.result;
  assert.equal(result.displays[0]!.mime, "text/plain");
  assert.match(result.displays[0]!.data, /chart not shown: its application\/vnd\.plotly\.v1\+json spec is 2\d\.\d MB/);
  assert.equal(result.displays[1]!.data, "plotly figure");
  assert.deepEqual(Object.keys(result.value!), ["text/plain"]);
  assert.match(result.value!["text/plain"]!, /^v\nchart not shown/);
});

test("a chart spec under the cap passes as it is", () => {
  const displays = [{ mime: VEGALITE, data: '{"mark":"bar"}' }];
  const parsed = parseWorkerMessage({ type: "result", id: 1, result: kernelResult(displays) });
  assert.ok(parsed.ok && parsed.value.type === "result");
  assert.deepEqual(parsed.value.result.displays, displays);
});

test("the model's summary of a plotly figure names its kind, title, axes, traces and points", () => {
  const spec = {
    data: [
      { type: "scatter", x: [1, 2, 3], y: [4, 5, 6] },
      { type: "bar", y: { dtype: "f8", bdata: "A".repeat(16 * 4) } },
    ],
    layout: { title: { text: "Sales" }, xaxis: { title: { text: "month" } }, yaxis: { title: { text: "EUR" } } },
  };
  assert.equal(
    chartSummary(PLOTLY, JSON.stringify(spec)),
    'plotly scatter+bar chart, title "Sales", axes x: month, y: EUR, 2 trace(s), 9 points',
  );
});

test("the model's summary of a Vega-Lite chart names its mark, encodings and rows", () => {
  const spec = {
    mark: { type: "point" },
    title: "Pairs",
    encoding: { x: { field: "a" }, y: { field: "b" } },
    datasets: { "data-1": [{ a: 1 }, { a: 2 }] },
  };
  assert.equal(
    chartSummary(VEGALITE, JSON.stringify(spec)),
    'Vega-Lite point chart, title "Pairs", encodings x: a, y: b, 2 rows',
  );
  assert.equal(chartSummary(VEGALITE, "{not json"), `a ${VEGALITE} chart whose spec is not JSON`);
});

test("the model gets the summaries, never the spec", () => {
  const spec = JSON.stringify({ data: [{ type: "scatter", y: [1, 2] }], layout: {} });
  const result = {
    ...okResult(""),
    displays: [
      { mime: PLOTLY, data: spec },
      { mime: "text/plain", data: "fig" },
    ],
  };
  const report = JSON.parse(resultForModel(result));
  assert.deepEqual(report.charts, ["plotly scatter chart, 1 trace(s), 2 points (shown to the user, interactive)"]);
  assert.doesNotMatch(resultForModel(result), /"y"/);
});

test("links in a spec's text lose their tags; columns of numbers are kept as they are", () => {
  const x = Array.from({ length: 1000 }, (_, i) => i);
  const spec = {
    data: [{ x, y: [1, null, 3], text: ["<a href='javascript:alert(1)'>one</a>", 2] }],
    layout: { title: { text: "<A HREF=x>Sales</a> <b>bold</b>" }, annotations: [{ text: "<a>a</a>" }] },
  };
  const safe = withoutLinks(spec) as typeof spec;
  assert.equal(safe.data[0]!.x, x); // not copied: nothing in it can link
  assert.deepEqual(safe.data[0]!.y, [1, null, 3]);
  assert.deepEqual(safe.data[0]!.text, ["one", 2]);
  assert.equal(safe.layout.title.text, "Sales <b>bold</b>");
  assert.equal(safe.layout.annotations[0]!.text, "a");
  assert.match(spec.data[0]!.text[0] as string, /href/); // the spec itself is left alone
});

test("the smaller plotly library refuses a figure with a trace type or a calendar it lacks", () => {
  const has = new Set(["scatter", "scattergl", "bar"]);
  const check = (figure: object): string | null => unsupported(figure, JSON.stringify(figure), has);
  assert.deepEqual(traceTypes({ data: [{ y: [1] }, { type: "bar" }, { type: "bar" }] }), ["scatter", "bar"]);
  assert.deepEqual(traceTypes({ data: "nonsense" }), []);
  assert.equal(check({ data: [{ type: "scattergl" }, { x: [1] }], layout: {} }), null);
  // A template's entries for every trace type are not traces: plotly.py's default carries them.
  assert.equal(
    check({ data: [{ type: "bar" }], layout: { template: { data: { scatter3d: [{ type: "scatter3d" }] } } } }),
    null,
  );
  assert.equal(
    check({ data: [{ type: "bar" }, { type: "scatterpolargl" }, { type: "sankey" }] }),
    "trace types scatterpolargl, sankey",
  );
  assert.equal(check({ data: [{ type: "bar", xcalendar: "gregorian" }] }), null);
  assert.equal(
    check({ data: [{ type: "bar" }], layout: { xaxis: { calendar: "jalali" } } }),
    "a calendar other than the Gregorian",
  );
});
