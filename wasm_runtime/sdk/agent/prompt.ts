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
  /** The kernel's preview of the data files (columns, dtypes, first rows); null: not asked for. */
  preview?: string | null;
  resumed?: ResumedState | null;
}

// The headers of the sections a compact prompt keeps (see contextSectionsOf) and of the rest.
const FILES_HEADER = "Files in the working directory";
const NOTES_HEADER = "Known differences from regular CPython:";
const RESUMED_HEADER = "This session was restored from storage:";
const TOOLS_HEADER = "Host tools:";
const METHOD_HEADER = "How to work, step by step:";
const HEADERS = [FILES_HEADER, NOTES_HEADER, RESUMED_HEADER, TOOLS_HEADER, METHOD_HEADER];

const INTRO = [
  "You are a careful data analyst. You can run Python with the `run_python` tool and must use it",
  "for any computation, data question or plot: never guess a number you could compute.",
];

/** How the model may ask for a run: see `AgentCreateOptions.codeBlocks`. */
export interface PromptStyle {
  codeBlocks?: "run" | "ask";
}

// How to work, in the order a small model should follow it: look, run, read, answer.
function method({ codeBlocks = "run" }: PromptStyle): string[] {
  const blocks = codeBlocks === "run";
  return [
    METHOD_HEADER,
    blocks
      ? "1. Think in one or two sentences about what to compute, then write a short program in one ```python code block (or call run_python with it): it is run and you get its output."
      : "1. Think in one or two sentences about what to compute, then call run_python with a short program.",
    "2. print() every value you will use in the answer; the result shows what was printed (stdout) and the last expression's value.",
    "3. Read the result. If it failed, read its error and `hint`, fix the code and run again; never answer from a failed run.",
    "4. Data written in the user's message is not in a file: put it into the code as a list, dict or string.",
    "5. When the printed output answers the question, reply in plain text, quoting the printed numbers exactly." +
      (blocks ? " Do not guess a program's output: wait for the result." : ""),
    "",
    "Example. User: How many words are in 'the cat sat on the mat', and how many are unique?",
    blocks
      ? 'You write:\n```python\nwords = "the cat sat on the mat".split()\nprint(len(words), len(set(words)))\n```'
      : 'You call run_python with code: words = "the cat sat on the mat".split()\nprint(len(words), len(set(words)))',
    "The result: 6 5 printed. You answer: It has 6 words, 5 of them unique.",
  ];
}

const OUTRO = ["If something could not be computed, say so in the answer."];

const list = (items: string[]): string => items.map((item) => `- ${item}`).join("\n");

/**
 * The parts of a system prompt made here that describe this session, not the rules: its files
 * (with their preview), what a resume brought back and the host's tools. A compact prompt for a
 * small local model keeps these: without the column names or the tools it can only guess.
 */
export function contextSectionsOf(system: string): string[] {
  return [FILES_HEADER, RESUMED_HEADER, TOOLS_HEADER].flatMap((header) => {
    const found = system.indexOf(`\n${header}`); // at a line's start: data quoted in the preview is indented
    if (found < 0) return [];
    const start = found + 1;
    const ends = HEADERS.filter((other) => other !== header)
      .map((other) => system.indexOf(`\n\n${other}`, start))
      .filter((end) => end > start);
    return [system.slice(start, ends.length ? Math.min(...ends) : undefined).trimEnd()];
  });
}

/** The prompt; without a context (a sandbox that cannot describe itself) only the rules (and the tools). */
export function systemPrompt(context: PromptContext | null, tools: ToolSpec[] = [], style: PromptStyle = {}): string {
  if (!context) return [...INTRO, "", ...toolsSection(tools), ...method(style), "", ...OUTRO].join("\n");
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
    ...filesSection(uploaded, context.preview ?? null),
    "",
    NOTES_HEADER,
    list(environment.notes),
    "",
    ...resumedSection(context.resumed ?? null),
    ...toolsSection(tools),
    ...method(style),
    "",
    ...OUTRO,
  ].join("\n");
}

/**
 * "Code mode": the host's functions are Python functions inside `run_python`, so one program can
 * call several of them and combine their answers, instead of one model round trip per call.
 * Written for small models: each tool as a Python stub with its description as docstring, how a
 * call is written and what it returns, and that they are reached only from the code.
 */
function toolsSection(tools: ToolSpec[]): string[] {
  const [first] = tools;
  if (!first) return [];
  return [
    `${TOOLS_HEADER} functions of the app you work for, reached only from your Python code (they are`,
    "not tools you call directly). In every run `tools` is already imported: call one with keyword",
    "arguments and `await`, as `result = await tools.name(argument=value)`. It returns JSON data (a",
    "dict, a list, a string or a number) that the same program can index and compute with. When",
    "the question needs several tools, call them one after another in ONE program, each with values",
    "taken from the results before it, and print() the results you use. A refused or failed call",
    "raises `ToolError` with the reason. The tools, as Python (call them, do not define them):",
    ...tools.map(stub),
    `For example: result = await tools.${first.name}(${exampleArguments(first.signature)})`,
    "print(result)",
    "",
  ];
}

/** `async def tools.name(*, a: str) -> Any:` with its description as docstring. */
function stub({ signature, description }: ToolSpec): string {
  const doc = description
    .trim()
    .replace(/\s*\n\s*/g, " ")
    .replace(/"""/g, "'''");
  return `async def tools.${signature}:` + (doc ? `\n    """${doc}"""` : "");
}

// A placeholder of each parameter's type, so the example reads as a call and not as data to copy.
const PLACEHOLDERS: Record<string, string> = { str: '"..."', int: "1", float: "1.0", bool: "True" };

/** `a="...", b=1` for the required parameters of `name(*, a: str, b: int, c: str = ...)`. */
function exampleArguments(signature: string): string {
  const params = /\(\*, (.*)\) ->/.exec(signature)?.[1] ?? "";
  return params
    .split(", ")
    .filter((param) => param && !param.endsWith(" = ..."))
    .map((param) => {
      const [name = "", type = ""] = param.split(": ");
      return `${name}=${PLACEHOLDERS[type] ?? "..."}`;
    })
    .join(", ");
}

/** The kernel's preview when there is one (it names every file), else the plain listing. */
function filesSection(listing: string, preview: string | null): string[] {
  if (!preview) return [`${FILES_HEADER}:`, listing];
  return [
    `${FILES_HEADER}, previewed from their first rows (a preview, not the whole data:`,
    "load the file to compute; use these exact column names):",
    preview,
  ];
}

/** Told after a reload: which variables are back (reuse them) and which must be computed again. */
function resumedSection(resumed: ResumedState | null): string[] {
  if (!resumed) return [];
  const back = resumed.restored.length ? resumed.restored.join(", ") : "(none)";
  const lines = [
    `${RESUMED_HEADER} the earlier runs' variables and files are back, no need to run that code again.`,
    `Variables restored: ${back}.`,
  ];
  if (resumed.notRestored.length) {
    lines.push("These could NOT be restored; recompute them (and only them) before use:");
    lines.push(list(resumed.notRestored.map((v) => `${v.name} (${v.reason})`)));
  }
  return [...lines, ""];
}
