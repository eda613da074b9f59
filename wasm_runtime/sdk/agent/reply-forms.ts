// How a model asked to run code, in the forms real models use: OpenAI `tool_calls`, or the call
// written as text by models (and servers) without function calling. Text that only shows code is
// told apart from a call: see docs/agent.md for the rules.
import type { ToolCall } from "./chat-types.js";
import {
  TOOL_NAME,
  codeIn,
  codeOf,
  leadingJsonObject,
  lenientJson,
  parseArguments,
  tripleQuotedToJson,
  type CodeOrProblem,
} from "./tool-calls.js";

export type ReplyForm = "tool_calls" | "fenced-json" | "hermes" | "functions-prefix" | "bare-python" | "none";

export interface ClassifiedReply {
  form: ReplyForm;
  /** One entry per call, in order; empty for "none". For "bare-python", the block's code. */
  calls: CodeOrProblem[];
}

/**
 * The form of a model's reply and the code of each call in it. `hostTools`: the names of the host
 * tools granted to the code (code mode); a call to one of them as a tool of the model's own is
 * not run, and its problem shows the Python line that makes the call.
 */
export function classifyReply(
  content: string,
  toolCalls: ToolCall[] = [],
  hostTools: readonly string[] = [],
): ClassifiedReply {
  const host = new Set(hostTools);
  if (toolCalls.length) {
    const calls = toolCalls.map((call) => {
      const args = host.has(call.function.name) ? parseArguments(call.function.arguments) : undefined;
      return args === undefined ? codeOf(call) : { problem: hostToolProblem(call.function.name, args) };
    });
    return { form: "tool_calls", calls };
  }
  const written = writtenCalls(content, new Set([TOOL_NAME, ...host]));
  if (written) {
    const calls = written.calls.map((call) =>
      "name" in call && host.has(call.name) && call.name !== TOOL_NAME
        ? { problem: hostToolProblem(call.name, call.args) }
        : codeCall(call, written.form),
    );
    return { form: written.form, calls };
  }
  const code = barePython(content);
  return code ? { form: "bare-python", calls: [code] } : { form: "none", calls: [] };
}

/** A call written as text: the tool it names and its arguments as written (parsed JSON, or raw text). */
type WrittenCall = { name: string; args: unknown } | { problem: string };

/** The forms a call to any tool is written in as text (not ```python blocks, which only run code). */
export type TextCallForm = Extract<ReplyForm, "hermes" | "functions-prefix" | "fenced-json">;

/** A call to a named tool written as text, with its keyword arguments; or why it cannot be made. */
export type TextToolCall = { name: string; arguments: Record<string, unknown> } | { problem: string };

/**
 * The tool calls a reply writes as text, for a loop that offers its own tools (`toolNames`):
 * Hermes `<tool_call>` tags, `functions.name:` lines, or call objects in JSON (fenced or the whole
 * reply), the forms `classifyReply` reads for run_python. `form` is "none" when there is no call.
 */
export function textToolCalls(
  content: string,
  toolNames: readonly string[],
): { form: TextCallForm | "none"; calls: TextToolCall[] } {
  const written = writtenCalls(content, new Set(toolNames));
  if (!written) return { form: "none", calls: [] };
  return { form: written.form, calls: written.calls.map(keywordCall) };
}

/**
 * A host tool called as if it were the model's own tool: it is a Python function, and the fix is
 * the line of Python that makes this very call.
 */
function hostToolProblem(name: string, args: unknown): string {
  const call = `await tools.${name}(${keywordArguments(args)})`;
  return (
    `${name} is a host tool: a Python function inside run_python, not a tool to call directly. ` +
    `Call it in the program: result = ${call}, then print(result)`
  );
}

/** JSON arguments as Python keyword arguments (`...` where they are not an object of identifiers). */
function keywordArguments(args: unknown): string {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return "...";
  const entries = Object.entries(args);
  if (!entries.every(([key]) => /^[A-Za-z_]\w*$/.test(key))) return "...";
  return entries.map(([key, value]) => `${key}=${pythonLiteral(value)}`).join(", ");
}

/** JSON data written as a Python literal. */
function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(", ")}]`;
  if (typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`)
      .join(", ")}}`;
  return JSON.stringify(value);
}

function writtenCalls(text: string, names: ReadonlySet<string>): { form: TextCallForm; calls: WrittenCall[] } | null {
  for (const [form, find] of TEXT_FORMS) {
    const calls = find(text, names);
    if (calls.length) return { form, calls };
  }
  return null;
}

/** A run_python call's code: its `code` argument, or (after `functions.run_python:`) the text itself. */
function codeCall(call: WrittenCall, form: TextCallForm): CodeOrProblem {
  if ("problem" in call) return call;
  const raw = form === "functions-prefix" && typeof call.args === "string";
  const missing = raw ? `there is no code after functions.${TOOL_NAME}:` : "its `code` argument is missing or empty";
  return codeIn(call.args) ?? { problem: missing };
}

/** Keyword arguments: a JSON object (text that parses to one counts). */
function keywordCall(call: WrittenCall): TextToolCall {
  if ("problem" in call) return call;
  const args = typeof call.args === "string" ? parseArguments(call.args) : call.args;
  if (args === undefined) return { problem: `the arguments of ${call.name} are not valid JSON` };
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return { problem: `the arguments of ${call.name} must be a JSON object of keyword arguments` };
  return { name: call.name, arguments: args as Record<string, unknown> };
}

type Finder = (text: string, names: ReadonlySet<string>) => WrittenCall[];

// Hermes/Qwen: `<tool_call>{"name": "run_python", "arguments": {...}}</tool_call>`; the closing
// tag may be missing when the reply was cut at a stop token.
const HERMES = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;

const hermes: Finder = (text, names) =>
  [...text.matchAll(HERMES)].map(([, body = ""]) => {
    const parsed = leadingJsonObject(body) ?? leadingJsonObject(tripleQuotedToJson(body));
    if (!parsed) return { problem: "the text inside <tool_call> is not valid JSON" };
    return namedCall(parsed.value, names) ?? { problem: "the <tool_call> names no tool" };
  });

// llama-cpp-python's chatml-function-calling format: `functions.run_python:` at the start of a
// line, then JSON arguments or (for run_python) the code itself, fenced or not.
const escaped = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const prefixFor = (names: ReadonlySet<string>): RegExp =>
  new RegExp(`(?:^|\\n)[ \\t]*functions\\.(${[...names].map(escaped).join("|")})[ \\t]*:?[ \\t]*`);

const functionsPrefix: Finder = (text, names) => {
  if (!names.size) return [];
  const match = prefixFor(names).exec(text);
  if (!match) return [];
  const name = match[1] ?? "";
  const rest = text.slice(match.index + match[0].length).trim();
  const fenced = /^```[\w-]*[ \t]*\n([\s\S]*?)(?:\n?```|$)/.exec(rest);
  const body = fenced ? (fenced[1] ?? "") : rest;
  if (body.trimStart().startsWith("{")) {
    const parsed = leadingJsonObject(body);
    if (parsed) return [namedCall(parsed.value, names) ?? { name, args: parsed.value }];
    if (!fenced) return [{ problem: `the arguments after functions.${name}: are not valid JSON` }];
  }
  return [{ name, args: body }];
};

// A JSON object (or list of them) naming a tool, in a ``` fence or as the whole reply.
const FENCE = /```(?:json|tool_call|tool|)[ \t]*\n([\s\S]*?)\n?```/g;

const fencedJson: Finder = (text, names) => {
  const bodies = [...text.matchAll(FENCE)].map(([, body = ""]) => body);
  const whole = text.trim();
  if (whole.startsWith("{") || whole.startsWith("[")) bodies.push(whole);
  for (const body of bodies) {
    const value = lenientJson(body);
    if (value === undefined) continue;
    const calls = (Array.isArray(value) ? value : [value])
      .filter((v) => looksLikeCall(v, names))
      .map((v) => namedCall(v, names))
      .filter((c) => c !== null);
    if (calls.length) return calls;
  }
  return [];
};

// ```python blocks and no call: run as one program, or not (the agent's `codeBlocks`, docs/agent.md).
const PYTHON_BLOCKS = /```(?:python3?|py)[ \t]*\n([\s\S]*?)```/g;

function barePython(text: string): { code: string } | null {
  const code = [...text.matchAll(PYTHON_BLOCKS)]
    .map(([, block = ""]) => block.replace(/^\s*\n/, "").trimEnd())
    .filter((block) => block.trim())
    .join("\n\n");
  return code ? { code: withoutToolImport(unwrapped(code)) } : null;
}

// `from tools import run_python`: the tool imported as if it were a Python module. It is not one
// (the block itself is the run), so the line would only fail the program.
const TOOL_IMPORT = new RegExp(
  `^[ \\t]*(?:from[ \\t]+[\\w.]+[ \\t]+)?import[ \\t]+${TOOL_NAME}[ \\t]*(?:#.*)?(?:\\n|$)`,
  "gm",
);

function withoutToolImport(code: string): string {
  const stripped = code.replace(TOOL_IMPORT, "");
  return stripped.trim() ? stripped : code;
}

/** The reply up to the end of its last python block: what follows it is not the model's program. */
export function throughLastBlock(text: string): string {
  const blocks = [...text.matchAll(PYTHON_BLOCKS)];
  const last = blocks.at(-1);
  return last?.index === undefined ? text : text.slice(0, last.index + last[0].length);
}

// A block calling run_python as if it were a Python function (`run_python("""…""")`, often after
// `from tools import run_python`): its program is the string it passes.
const WRAPPED_CALL = new RegExp(
  `\\b${TOOL_NAME}\\(\\s*(?:code\\s*=\\s*)?(?:r?"""([\\s\\S]*?)"""|r?'''([\\s\\S]*?)'''|("(?:[^"\\\\\\n]|\\\\.)*"))\\s*\\)`,
  "g",
);

function unwrapped(code: string): string {
  const programs = [...code.matchAll(WRAPPED_CALL)].map(([, double, single, quoted]) => {
    if (quoted === undefined) return dedent(double ?? single ?? "");
    try {
      return String(JSON.parse(quoted));
    } catch {
      return "";
    }
  });
  const program = programs.filter((p) => p.trim()).join("\n\n");
  return program || code;
}

/** Python's textwrap.dedent, enough for a program written inside a string. */
function dedent(text: string): string {
  const lines = text
    .replace(/^\s*\n/, "")
    .trimEnd()
    .split("\n");
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0);
  const common = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(common)).join("\n");
}

const TEXT_FORMS: [TextCallForm, Finder][] = [
  ["hermes", hermes],
  ["functions-prefix", functionsPrefix],
  ["fenced-json", fencedJson],
];

/** Plain data with a `name` field is not a call: a call names a tool offered or carries arguments. */
function looksLikeCall(value: unknown, names: ReadonlySet<string>): boolean {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  if (names.has(v.name as string) || names.has(v.tool as string)) return true;
  return ["arguments", "parameters", "function", "function_call"].some((key) => key in v);
}

/**
 * A call object in the shapes models write (`{name, arguments}`, `{tool, parameters}`,
 * `{function: {name, arguments}}`, `{function_call: ...}`, or the arguments beside the name);
 * a problem when it names a tool not offered; null when it names no tool at all.
 */
function namedCall(value: unknown, names: ReadonlySet<string>): WrittenCall | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const inner = (v.function_call ?? (typeof v.function === "object" ? v.function : null)) as Record<
    string,
    unknown
  > | null;
  const name = v.name ?? v.tool ?? (typeof v.function === "string" ? v.function : undefined) ?? inner?.name;
  if (typeof name !== "string") return null;
  if (!names.has(name)) return { problem: `there is no tool named ${JSON.stringify(name)}` };
  let args = v.arguments ?? v.parameters ?? v.args ?? inner?.arguments ?? inner?.parameters ?? besideName(v);
  if (typeof args === "string") args = parseArguments(args) ?? args;
  return { name, args };
}

/** `{"name": "f", "x": 1}`: the arguments written beside the name. */
function besideName(v: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(v).filter(([key]) => !["name", "tool", "function"].includes(key)));
}

/**
 * What a valid call looks like: told to a model whose call could not be run. The shape only, with
 * no program in it: a small model copies a runnable example instead of writing its own.
 */
export const INVALID_CALL_HELP =
  "Call the run_python tool with one argument, `code`: the whole program as one string. Without " +
  'native tool calls, write exactly: <tool_call>{"name": "run_python", "arguments": {"code": ' +
  '"<your program>"}}</tool_call>';

/** The same, for an agent that runs ```python blocks: the form small models write most reliably. */
export const CODE_BLOCK_HELP =
  "Write the whole program in one ```python code block: it is run and you get its output. " +
  "(Or call the run_python tool with one argument, `code`.)";

// A reply with no call in it that still reads as an attempt at one: the tool named, a tag or a
// code fence left unmarked; a model that meant to run code gets told how instead of stopping.
const ATTEMPT = /run_python|<\/?tool_call|"code"\s*:|```(?:[ \t]*\n)[\s\S]*?\b(?:print|import|def|for|return)\b/;

/** The problem of a reply ("none" form) that looks like an attempt to call, else null. */
export function attemptedCall(content: string): string | null {
  if (!ATTEMPT.test(content)) return null;
  if (/```[ \t]*\n/.test(content)) return "the code is in a fence that names no language and no call was made";
  return "the reply mentions run_python but holds no call that can be run";
}
