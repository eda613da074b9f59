// The one table of limits, in limits.json: read here by the SDK and the worker, by the kernel
// (wasmbox_kernel/protocol_data.py; the builder packs the file into its wheel) and the backend.
//   stdoutLimit, stderrLimit  default caps on a run's output (characters), unless create() sets them
//   maxStreamChunk            the largest output chunk the host accepts in one message
//   maxTextBytes              the largest string the host accepts anywhere in a result
//   maxFileBytes              the per-request file cap (100 MB), both ways
//   maxStateBytes             the largest pickled session state the host accepts (1 GiB)
//   maxListEntries            the most files one listing, scan or result reports
//   maxToolBytes              the largest JSON text of a host call's arguments or answer (UTF-8 bytes)
//   maxToolDepth              the deepest nesting of arrays and objects in that JSON
//   maxToolCallsPerRun        the most host calls (tools and input()) one run may make
//   maxPendingToolCalls       the most host calls of one run waiting for their answer at once
//   maxTools                  the most tools a sandbox or a run may be given
//   maxChartBytes             the largest chart spec (plotly / Vega-Lite JSON) shown as a chart
import table from "./limits.json";

export const LIMITS: Readonly<typeof table> = table;
