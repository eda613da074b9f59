// What the model is told about an interactive chart it made: its kind, title, axes, traces and
// points, read from the spec (the user sees the chart itself). A spec that is not JSON says so.
import type { ExecutionResult } from "../../protocol/types.js";

const PLOTLY = "application/vnd.plotly.v1+json";
const VEGALITE = "application/vnd.vegalite.v5+json";

type Json = Record<string, unknown>;
const asObject = (value: unknown): Json => (value && typeof value === "object" ? (value as Json) : {});

function titleOf(value: unknown): string {
  const title = typeof value === "object" && value !== null ? asObject(value).text : value;
  return typeof title === "string" || typeof title === "number" ? String(title).slice(0, 200) : "";
}

function columnLength(column: unknown): number {
  if (Array.isArray(column)) return column.length;
  const typed = asObject(column); // plotly's typed arrays: {dtype, bdata (base64), shape?}
  if (typeof typed.bdata !== "string") return 0;
  if (typeof typed.shape === "string") return typed.shape.split(",").reduce((n, d) => n * (Number(d) || 1), 1);
  const itemBytes = Number(String(typed.dtype ?? "f8").slice(1)) || 8;
  return Math.floor((typed.bdata.length * 3) / 4 / itemBytes);
}

function plotlySummary(spec: Json): string {
  const traces = (Array.isArray(spec.data) ? spec.data : []).map(asObject);
  const kinds = [...new Set(traces.map((t) => String(t.type ?? "scatter")))];
  const points = traces.reduce((n, t) => n + columnLength(t.x ?? t.y ?? t.values ?? t.z), 0);
  const layout = asObject(spec.layout);
  const axes = ["xaxis", "yaxis"]
    .map((axis) => titleOf(asObject(layout[axis]).title))
    .map((title, i) => (title ? `${"xy"[i]}: ${title}` : ""))
    .filter(Boolean);
  const title = titleOf(layout.title);
  return [
    `plotly ${kinds.join("+") || "empty"} chart`,
    title && `title "${title}"`,
    axes.length && `axes ${axes.join(", ")}`,
    `${traces.length} trace(s)`,
    `${points} points`,
  ]
    .filter(Boolean)
    .join(", ");
}

function vegaLiteSummary(spec: Json): string {
  const mark = spec.mark;
  const kind = String((typeof mark === "object" ? asObject(mark).type : mark) ?? (spec.layer ? "layered" : "composed"));
  const encoding = asObject(spec.encoding);
  const axes = ["x", "y", "color"]
    .filter((channel) => encoding[channel])
    .map(
      (channel) =>
        `${channel}: ${String(asObject(encoding[channel]).field ?? asObject(encoding[channel]).title ?? "")}`,
    );
  const values = asObject(spec.data).values;
  const rows = Array.isArray(values)
    ? values.length
    : Object.values(asObject(spec.datasets)).reduce<number>((n, d) => n + (Array.isArray(d) ? d.length : 0), 0);
  const title = titleOf(spec.title);
  return [
    `Vega-Lite ${kind} chart`,
    title && `title "${title}"`,
    axes.length && `encodings ${axes.join(", ")}`,
    `${rows} rows`,
  ]
    .filter(Boolean)
    .join(", ");
}

/** One line for a chart spec of `mime`; "" for any other MIME type. */
export function chartSummary(mime: string, spec: string): string {
  if (mime !== PLOTLY && mime !== VEGALITE) return "";
  let parsed: Json;
  try {
    parsed = asObject(JSON.parse(spec));
  } catch {
    return `a ${mime} chart whose spec is not JSON`;
  }
  return mime === PLOTLY ? plotlySummary(parsed) : vegaLiteSummary(parsed);
}

/** The summaries of a result's charts (its displays, then its value), shown to the user. */
export function chartSummaries(result: ExecutionResult): string[] {
  const specs = result.displays.map((d) => [d.mime, d.data] as const);
  for (const [mime, data] of Object.entries(result.value ?? {})) specs.push([mime, data]);
  return specs.map(([mime, data]) => chartSummary(mime, data)).filter(Boolean);
}
