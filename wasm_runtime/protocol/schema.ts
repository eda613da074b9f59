// The one definition of what the sandbox may send the host, and of the result the SDK returns:
// valibot schemas, from which the TypeScript types (types.ts), the host's validator (validate.ts)
// and the JSON Schema the Python client checks against (execution-result.schema.json, made by
// json-schema.ts) all derive. The kernel's `result.py` mirrors the kernel's result, and
// tests/js/contract.test.ts checks real kernel output (tests/fixtures/kernel-results/) against it.
// Parsing builds fresh objects: unknown fields are dropped, so nothing the sandbox adds gets
// through, and every string and list has a cap.
import * as v from "valibot";
import { LIMITS } from "./limits.js";
import {
  ANNOUNCED_IMPORTS,
  BOOTED_FROM,
  HOST_CALL_KINDS,
  MEMORY_BUDGET_HELD,
  OUTCOMES,
  RUNTIME_FILE_NAME,
  TOOL_NAME,
} from "./types.js";

const text = (max: number = LIMITS.maxTextBytes) => v.pipe(v.string(), v.maxLength(max));
const shortText = text(4096);
const int = v.pipe(v.number(), v.safeInteger());
const finite = v.pipe(v.number(), v.finite());
const list = <T extends v.GenericSchema>(item: T, max: number = LIMITS.maxListEntries) =>
  v.pipe(v.array(item), v.maxLength(max));
/**
 * `list(item)`, its entries checked in one plain loop: `entry(value)` is what `item` makes of an
 * entry it accepts (a fresh value, its schema's fields only), or `undefined` for one it might
 * refuse. A run that wrote 10,000 files sends 10,000 paths in `files` and again in
 * `audit.filesWritten`, and valibot's per-entry check (a dataset object per entry and per field)
 * was most of the page's time receiving them. Whatever the loop does not accept whole (the
 * list, its length, any entry) goes to `list(item)` itself: a refusal names the same field and
 * problem, and the types and the JSON Schema (which read the schema, not its `~run`) are its.
 */
const quickList = <T extends v.GenericSchema>(
  item: T,
  entry: (value: unknown) => v.InferOutput<T> | undefined,
  max: number = LIMITS.maxListEntries,
) => {
  const checked = list(item, max);
  return {
    ...checked,
    "~run"(dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) {
      const input = dataset.value;
      if (!Array.isArray(input) || input.length > max) return checked["~run"](dataset, config);
      const output: v.InferOutput<T>[] = [];
      for (let i = 0; i < input.length; i++) {
        const value = entry(input[i]);
        if (value === undefined) return checked["~run"](dataset, config);
        output.push(value);
      }
      return { typed: true, value: output } as v.OutputDataset<v.InferOutput<T>[], never>;
    },
  } as typeof checked;
};
const isShortText = (value: unknown): value is string => typeof value === "string" && value.length <= 4096;
/** A list of paths or names (`shortText` each), checked in one loop. */
const shortTexts = () => quickList(shortText, (value) => (isShortText(value) ? value : undefined));

// Python's None arrives as undefined after toJs(); both mean "absent", and become null.
const absentOr = <T extends v.GenericSchema>(schema: T) => v.nullish(schema, null);

/** `hint`: one line saying how to repair (kernel/hints.py), for the failures models repeat. */
export const ErrorInfoSchema = v.object({
  name: text(256),
  message: text(1 << 20),
  traceback: text(1 << 20),
  hint: v.optional(text(1000)),
});

/** Interactive charts' MIME types (Jupyter's); `data` is the spec as JSON text, like application/json. */
export const CHART_MIMES: readonly string[] = ["application/vnd.plotly.v1+json", "application/vnd.vegalite.v5+json"];

/** A chart spec over `maxChartBytes` is not passed on to a renderer: a note says why instead. */
const tooLarge = (mime: string, data: string): boolean =>
  CHART_MIMES.includes(mime) && data.length > LIMITS.maxChartBytes;
const tooLargeNote = (mime: string, data: string): string =>
  `chart not shown: its ${mime} spec is ${(data.length / 1e6).toFixed(1)} MB, over the ` +
  `${(LIMITS.maxChartBytes / 1e6).toFixed(0)} MB cap`;

export const MimeBundleSchema = v.pipe(
  v.record(text(256), text()),
  v.transform((bundle) => {
    const kept: Record<string, string> = {};
    for (const [mime, data] of Object.entries(bundle)) {
      if (tooLarge(mime, data))
        kept["text/plain"] = `${bundle["text/plain"] ?? ""}\n${tooLargeNote(mime, data)}`.trim();
      else if (!(mime === "text/plain" && kept["text/plain"])) kept[mime] = data;
    }
    return kept;
  }),
);

export const DisplaySchema = v.pipe(
  v.object({ mime: text(256), data: text() }),
  v.transform((d) => (tooLarge(d.mime, d.data) ? { mime: "text/plain", data: tooLargeNote(d.mime, d.data) } : d)),
);

export const FileInfoSchema = v.object({ path: shortText, size: int, mime: text(256) });

/** A run's files (`FileInfoSchema` each), checked in one loop. */
const fileInfos = () =>
  quickList(FileInfoSchema, (value) => {
    if (typeof value !== "object" || value === null) return undefined;
    const { path, size, mime } = value as Record<string, unknown>;
    const fits = isShortText(path) && Number.isSafeInteger(size) && typeof mime === "string" && mime.length <= 256;
    return fits ? { path, size: size as number, mime } : undefined;
  });

const NetworkAttemptOutput = v.object({ kind: shortText, target: shortText });

/** An attempt the browser blocked; a bare string (older kernels) is taken as its target. */
export const NetworkAttemptSchema = v.union([
  v.pipe(
    v.string(),
    v.transform((target) => ({ kind: "unknown", target: target.slice(0, 4096) })),
    NetworkAttemptOutput,
  ),
  v.pipe(
    v.looseObject({ kind: v.optional(shortText), target: v.optional(shortText), url: v.optional(shortText) }),
    v.transform((o) => ({ kind: o.kind ?? "unknown", target: o.target ?? o.url ?? "" })),
    NetworkAttemptOutput,
  ),
]);

/**
 * One host call of a run, as the host recorded it (never taken from the sandbox): the tool, the
 * size of its arguments' JSON text, how long the host took, and whether it answered with a value.
 */
export const ToolCallRecordSchema = v.object({
  name: text(64),
  argumentsBytes: int,
  ms: finite,
  ok: v.boolean(),
  error: absentOr(text(4096)),
});

export const AuditSchema = v.object({
  codeSha256: text(64),
  filesRead: shortTexts(),
  filesWritten: shortTexts(),
  networkAttempts: list(NetworkAttemptSchema),
  importedModules: shortTexts(),
  peakMemoryBytes: absentOr(finite),
  /** Filled by the host from its own record of the run's tool calls: what the kernel says is dropped. */
  toolCalls: v.pipe(
    v.optional(v.unknown()),
    v.transform((): v.InferOutput<typeof ToolCallRecordSchema>[] => []),
  ),
});

/** The policy rule that refused a run, and where. */
export const PolicyInfoSchema = v.object({ rule: shortText, line: absentOr(int), message: text(1 << 16) });

/** What the kernel reports for one run (the worker adds the heap size). */
export const KernelResultSchema = v.object({
  outcome: v.picklist(OUTCOMES),
  stdout: text(),
  stderr: text(),
  truncated: v.boolean(),
  value: absentOr(MimeBundleSchema),
  displays: list(DisplaySchema),
  files: fileInfos(),
  error: absentOr(ErrorInfoSchema),
  audit: AuditSchema,
  /** Set when the policy refused the run (an extension of DESIGN.md's result). */
  policy: absentOr(PolicyInfoSchema),
  /** A hint on a result without an error: a run that printed and returned nothing. */
  hint: v.optional(text(1000)),
});

/** A variable that could not be saved or restored, and why. */
export const SkippedVariableSchema = v.object({ name: shortText, reason: shortText });

/** The outcome of the SDK's `expect` check on a run's value. */
export const ValidationSchema = v.object({ ok: v.boolean(), errors: list(text(1 << 16)) });

/** What a restarted persisted sandbox loaded from its last save. */
export const StateRestoredSchema = v.object({
  /** When that save was taken (ms since the epoch). */
  savedAt: finite,
  restored: list(shortText),
  notRestored: list(SkippedVariableSchema),
  /** The worker was lost while idle, before this run (which then ran in the restored sandbox). */
  whileIdle: v.optional(v.boolean()),
  /** Why the worker was lost, when it was lost while idle. */
  reason: v.optional(text(1 << 16)),
});

/**
 * What `Sandbox.execute` returns: DESIGN.md's `ExecutionResult`, the kernel's result plus what the
 * host adds. The host builds it (nothing parses it from the sandbox); the Python client's model is
 * checked against its JSON Schema.
 */
export const ExecutionResultSchema = v.object({
  ...KernelResultSchema.entries,
  /** The kernel's audit, with the host's own record of the run's tool calls. */
  audit: v.object({ ...AuditSchema.entries, toolCalls: v.optional(list(ToolCallRecordSchema)) }),
  durationMs: finite,
  /** True when the worker had to be killed and replaced. */
  stateLost: v.boolean(),
  /** Only when `expect` was given. */
  validation: v.optional(ValidationSchema),
  /** A persisted sandbox that lost its worker got its last save's variables back (this run's changes are gone). */
  stateRestored: v.optional(StateRestoredSchema),
});

export const EnvironmentSchema = v.object({
  python: shortText,
  packages: v.record(v.string(), shortText),
  limits: v.pipe(
    v.record(v.string(), v.unknown()),
    v.transform((limits) => JSON.parse(JSON.stringify(limits)) as Record<string, unknown>),
  ),
  notes: list(shortText),
  /** The latest lines of the worker's loader log ("Loading numpy…", a preload that failed). */
  log: list(shortText, 200),
});

/** A cap a request ran into: the file (when one file was the reason), its size or count, and the cap. */
export const LimitInfoSchema = v.object({ path: absentOr(shortText), size: int, limit: int });

const bytes = (max: number) =>
  v.pipe(
    v.custom<Uint8Array>((data) => data instanceof Uint8Array, "not a Uint8Array"),
    v.check((data) => data.byteLength <= max, `over the ${max}-byte cap`),
  );

/** A session's pickled variables, the ones that could not be pickled, and the runtime packages they need. */
export const SavedStateSchema = v.object({
  data: bytes(LIMITS.maxStateBytes),
  skipped: list(SkippedVariableSchema),
  packages: list(shortText),
});

// Worker → host: replies to requests (by `id`), events of a run or of the worker, and the one
// request the worker makes (`fetch-runtime`, which the host answers with a RuntimeFileReply).
export const WorkerMessageSchema = v.variant("type", [
  // `steps`: when each start-up step ended, in ms since the epoch (performance marks on the host).
  // `snapshot`: what the worker booted from (the package snapshot falls back to the base one).
  v.object({
    type: v.literal("booted"),
    isolated: v.boolean(),
    bootMs: finite,
    snapshot: v.picklist(BOOTED_FROM),
    // A worker from before the guard checked the budget after the run only.
    memoryBudget: v.optional(v.picklist(MEMORY_BUDGET_HELD), "after-run"),
    // The size of its WebAssembly memory once booted (0: a worker from before it said).
    memoryBytes: v.optional(int, 0),
    steps: v.optional(list(v.object({ name: text(64), at: finite }), 24), []),
  }),
  v.object({
    type: v.literal("stream"),
    id: int,
    name: v.picklist(["stdout", "stderr"]),
    text: text(LIMITS.maxStreamChunk),
  }),
  // Run `id` imported one of ANNOUNCED_IMPORTS for the first time in this worker: a name from
  // that fixed list and nothing else (the host takes each name once per worker: sdk/engine.ts).
  v.object({ type: v.literal("imported"), id: int, module: v.picklist(ANNOUNCED_IMPORTS) }),
  // An unclaimed spare's runtime packages loaded and imported so far (its snapshot's, then each
  // preload step's): the pool may give it to a resume whose variables need only these
  // (sdk/pool.ts). Taken only from a spare no session has had: a claimed worker's is ignored.
  v.object({ type: v.literal("preloaded"), packages: list(text(100), 200) }),
  v.object({ type: v.literal("result"), id: int, result: KernelResultSchema }),
  v.object({ type: v.literal("done"), id: int }),
  v.object({ type: v.literal("file"), id: int, data: bytes(LIMITS.maxFileBytes) }),
  // The answer to `read-files`; the host asks for at most maxFileBytes in all (sdk/mirror.ts).
  v.object({
    type: v.literal("file-batch"),
    id: int,
    files: v.pipe(
      list(v.object({ path: shortText, data: bytes(LIMITS.maxFileBytes) })),
      v.check(
        (files) => files.reduce((sum, { data }) => sum + data.byteLength, 0) <= LIMITS.maxFileBytes,
        `over the ${LIMITS.maxFileBytes}-byte cap in all`,
      ),
    ),
  }),
  v.object({ type: v.literal("files"), id: int, files: fileInfos() }),
  v.object({ type: v.literal("environment"), id: int, environment: EnvironmentSchema }),
  // The working directory's data files previewed by the kernel (kernel/workspace.py), bounded.
  v.object({ type: v.literal("workspace"), id: int, preview: text(16_384) }),
  // A persisted session's variables: saved (`save-state`) and restored (`load-state`).
  v.object({ type: v.literal("state"), id: int, state: SavedStateSchema }),
  v.object({
    type: v.literal("state-loaded"),
    id: int,
    restored: list(shortText),
    failed: list(SkippedVariableSchema),
    // When each step of the restore ended (ms since the epoch), as for `booted`.
    steps: v.optional(list(v.object({ name: text(64), at: finite }), 24), []),
  }),
  // The request could not be done; the worker lives on. `limit` is set when a cap was the reason.
  v.object({ type: v.literal("failed"), id: int, error: ErrorInfoSchema, limit: absentOr(LimitInfoSchema) }),
  v.object({ type: v.literal("fatal"), error: ErrorInfoSchema }),
  // Python asks the host something during run `id`: a tool (`kind` "tool") or a line for input()
  // (`kind` "input", `name` "input"). `args` is JSON text, parsed and checked by the host
  // (sdk/tools.ts); `sync` says the worker is blocked on the shared answer line (sandbox/host-calls.ts).
  v.object({
    type: v.literal("host-call"),
    id: int,
    callId: int,
    kind: v.picklist(HOST_CALL_KINDS),
    name: v.pipe(v.string(), v.regex(TOOL_NAME)),
    args: v.pipe(v.string(), v.maxLength(LIMITS.maxToolBytes)),
    sync: v.boolean(),
  }),
  v.object({
    type: v.literal("fetch-runtime"),
    fetchId: int,
    file: v.pipe(v.string(), v.regex(RUNTIME_FILE_NAME)),
  }),
]);
