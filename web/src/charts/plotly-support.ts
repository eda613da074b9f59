// Whether a plotly library drawn from a subset of plotly.js's trace types can draw a figure as the
// full library would. plotly.js draws a trace of a type it lacks as a scatter and ignores a calendar
// it lacks, so such a figure must go to the full library: a missing part is never drawn wrong.

interface Trace {
  type?: unknown;
}

/** The trace types `figure` uses (a trace without a type is a scatter, as plotly.js has it). */
export function traceTypes(figure: unknown): string[] {
  const data = (figure as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return [];
  const types = data.map((trace: Trace | null) => (typeof trace?.type === "string" ? trace.type : "scatter"));
  return [...new Set(types)];
}

// A calendar attribute (`xcalendar`, `layout.xaxis.calendar`...) other than the default, which
// only the full library's calendars component draws. Looked for in the spec's text: any key will do.
const OTHER_CALENDAR = /"[a-z]*calendar"\s*:\s*"(?!gregorian")/;

/** Why a library holding `traces` cannot draw the figure whose JSON is `text` (parsed: `figure`),
 * or null when it can. */
export function unsupported(figure: unknown, text: string, traces: ReadonlySet<string>): string | null {
  const missing = traceTypes(figure).filter((type) => !traces.has(type));
  if (missing.length) return `trace types ${missing.join(", ")}`;
  if (OTHER_CALENDAR.test(text)) return "a calendar other than the Gregorian";
  return null;
}
