// OpenAI `tool_calls`: the one tool offered, calls assembled from streamed deltas, and the code of
// a call (or why it cannot be run, which is told back to the model).
import type { ToolCall, ToolCallDelta } from "./chat-types.js";

export const TOOL_NAME = "run_python";

export const RUN_PYTHON_TOOL = {
  type: "function",
  function: {
    name: TOOL_NAME,
    description:
      "Run Python code in the user's sandbox (Pyodide in the browser) and get back its outcome, " +
      "stdout, stderr, the value of the last expression, and any error with its traceback. " +
      "Variables and files persist between calls.",
    parameters: {
      type: "object",
      properties: { code: { type: "string", description: "The Python code to run." } },
      required: ["code"],
    },
  },
} as const;

function argumentsText(fn: ToolCallDelta["function"]): string {
  const args = fn?.arguments;
  if (typeof args === "string") return args;
  // Ollama's native shape: arguments as an object.
  return args && typeof args === "object" ? JSON.stringify(args) : "";
}

/**
 * Collects `tool_calls` deltas. OpenAI sends a call's name and id once and its arguments in
 * pieces, by `index`; some servers omit `index` (a new `id` starts a new call), send the whole
 * call in one chunk, or repeat the name in every chunk.
 */
export class ToolCallAssembler {
  private readonly calls: ToolCall[] = [];
  private readonly byIndex = new Map<number, ToolCall>();

  /** Adds `deltas`; returns the arguments' text they carried (JSON, in pieces as it streams). */
  add(deltas: ToolCallDelta[]): string {
    let added = "";
    for (const delta of deltas) {
      const call = this.callFor(delta);
      if (delta.id) call.id = delta.id;
      const name = delta.function?.name;
      if (name && call.function.name !== name) call.function.name += name;
      const text = argumentsText(delta.function);
      call.function.arguments += text;
      added += text;
    }
    return added;
  }

  private callFor(delta: ToolCallDelta): ToolCall {
    if (typeof delta.index === "number") {
      let call = this.byIndex.get(delta.index);
      if (!call) this.byIndex.set(delta.index, (call = this.open()));
      return call;
    }
    const last = this.calls[this.calls.length - 1];
    const startsNew = !last || (delta.id && last.id && delta.id !== last.id);
    return startsNew ? this.open() : last;
  }

  private open(): ToolCall {
    const call: ToolCall = { id: "", type: "function", function: { name: "", arguments: "" } };
    this.calls.push(call);
    return call;
  }

  done(): ToolCall[] {
    return this.calls.filter((call) => call.function.name || call.function.arguments);
  }
}

export type CodeOrProblem = { code: string } | { problem: string };

/** The code of a `run_python` call, or why it cannot be run. */
export function codeOf(call: ToolCall): CodeOrProblem {
  if (call.function.name !== TOOL_NAME)
    return { problem: `there is no tool named ${JSON.stringify(call.function.name)}` };
  const args = parseArguments(call.function.arguments);
  if (args === undefined) return { problem: "its arguments are not valid JSON" };
  return codeIn(args) ?? { problem: "its `code` argument is missing or empty" };
}

/** `{"code": "..."}` → the code; a bare string is taken as the code too. */
export function codeIn(args: unknown): { code: string } | null {
  const code = typeof args === "string" ? args : (args as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.trim() ? { code } : null;
}

/**
 * JSON arguments. An empty string is `{}`; an object sent twice back to back (a known
 * streaming-parser bug in some servers) is read once.
 */
export function parseArguments(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    const first = leadingJsonObject(text);
    if (first === null) return undefined;
    const rest = text.slice(first.end).trim();
    return rest === "" || rest === text.slice(0, first.end).trim() ? first.value : undefined;
  }
}

/**
 * Python's triple-quoted strings, which small models write as JSON values (Qwen2.5-Coder-1.5B:
 * `"code": """\nimport sympy…"""`), turned into JSON strings with their text as written. Only
 * tried on text that did not parse as JSON.
 */
export function tripleQuotedToJson(text: string): string {
  return text.replace(/"""([\s\S]*?)"""|'''([\s\S]*?)'''/g, (_all, double?: string, single?: string) =>
    JSON.stringify(double ?? single ?? ""),
  );
}

/** JSON, or JSON with Python triple-quoted strings in it; undefined when neither parses. */
export function lenientJson(text: string): unknown {
  for (const candidate of [text, tripleQuotedToJson(text)]) {
    try {
      return JSON.parse(candidate);
    } catch {
      // the next candidate
    }
  }
  return undefined;
}

/** The JSON object at the start of `text` (after whitespace), and where it ends; null if none parses. */
export function leadingJsonObject(text: string): { value: unknown; end: number } | null {
  const start = text.search(/\S/);
  if (start < 0 || text[start] !== "{") return null;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth += 1;
    else if (c === "}" && --depth === 0) {
      try {
        return { value: JSON.parse(text.slice(start, i + 1)), end: i + 1 };
      } catch {
        return null;
      }
    }
  }
  return null;
}
