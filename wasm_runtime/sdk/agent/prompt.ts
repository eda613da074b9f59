// The system prompt: the environment described truthfully, from the sandbox itself.
import type { Environment, FileInfo, SkippedVariable, ToolSpec } from "../../protocol/types.js";

/** What a resumed (or forked) sandbox got back: the model must regenerate only what is missing. */
export interface ResumedState {
  restored: string[];
  notRestored: SkippedVariable[];
}

export interface PromptContext {
  environment: Environment;
  files: FileInfo[];
  resumed?: ResumedState | null;
}

const INTRO = [
  "You are a careful data analyst. You can run Python with the `run_python` tool and must use it",
  "for any computation, data question or plot: never guess a number you could compute.",
];

const OUTRO = [
  "When a run fails, read the error, fix the code and run it again. When you answer, explain the",
  "real output you got; if something could not be computed, say so.",
];

const list = (items: string[]): string => items.map((item) => `- ${item}`).join("\n");

/** The prompt; without a context (a sandbox that cannot describe itself) only the rules (and the tools). */
export function systemPrompt(context: PromptContext | null, tools: ToolSpec[] = []): string {
  if (!context) return [...INTRO, "", ...toolsSection(tools), ...OUTRO].join("\n");
  const { environment, files } = context;
  const timeoutMs = Number(environment.limits.timeoutMs) || 30_000;
  const packages = Object.entries(environment.packages)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, version]) => `${name} ${version}`)
    .join(", ");
  const uploaded = files.length ? list(files.map((f) => `${f.path} (${f.size} bytes)`)) : "(none yet)";
  return [
    ...INTRO,
    "",
    "The environment:",
    list([
      `Python ${environment.python} under Pyodide (CPython compiled to WebAssembly), in the user's browser.`,
      `Packages available (nothing else can be installed): ${packages}.`,
      "There is no network access: no downloads, no HTTP, no pip.",
      `Each run stops after ${Math.round(timeoutMs / 1000)} seconds.`,
      "Variables and files persist between runs; the last expression's value is shown, like in Jupyter.",
      "Open matplotlib figures are shown to the user as images automatically; print what you need to read.",
    ]),
    "",
    "Files in the working directory:",
    uploaded,
    "",
    "Known differences from regular CPython:",
    list(environment.notes),
    "",
    ...resumedSection(context.resumed ?? null),
    ...toolsSection(tools),
    ...OUTRO,
  ].join("\n");
}

/**
 * "Code mode": the host's functions are Python functions inside `run_python`, so one program can
 * call several of them and combine their answers, instead of one model round trip per call.
 */
function toolsSection(tools: ToolSpec[]): string[] {
  if (!tools.length) return [];
  return [
    "Host functions: inside `run_python`, `from wasmbox import tools` gives these (keyword arguments,",
    "JSON data back). Call them from your code, several in one program when the task needs several:",
    "`await tools.name(...)` (or `await asyncio.gather(...)` for independent calls). A refusal or a",
    "failure raises `wasmbox.ToolError` with the reason.",
    list(tools.map((tool) => `tools.${tool.signature}${tool.description ? `: ${tool.description}` : ""}`)),
    "",
  ];
}

/** Told after a reload: which variables are back (reuse them) and which must be computed again. */
function resumedSection(resumed: ResumedState | null): string[] {
  if (!resumed) return [];
  const back = resumed.restored.length ? resumed.restored.join(", ") : "(none)";
  const lines = [
    "This session was restored from storage: the earlier runs' variables and files are back, no need to run that code again.",
    `Variables restored: ${back}.`,
  ];
  if (resumed.notRestored.length) {
    lines.push("These could NOT be restored; recompute them (and only them) before use:");
    lines.push(list(resumed.notRestored.map((v) => `${v.name} (${v.reason})`)));
  }
  return [...lines, ""];
}
