// Tool calls from a streamed model turn: OpenAI `tool_calls` deltas assembled by index, or, for
// small local models that write the call as text, a fenced JSON block naming `run_python`.
import type { ToolCall, ToolCallDelta } from "../api/chat-types.js";

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

/** Collects `tool_calls` deltas; a call's name and id arrive once, its arguments in pieces. */
export class ToolCallAssembler {
  private readonly calls = new Map<number, ToolCall>();

  add(deltas: ToolCallDelta[]): void {
    for (const delta of deltas) {
      const call = this.calls.get(delta.index) ?? {
        id: "",
        type: "function" as const,
        function: { name: "", arguments: "" },
      };
      if (delta.id) call.id = delta.id;
      if (delta.function?.name) call.function.name += delta.function.name;
      if (delta.function?.arguments) call.function.arguments += delta.function.arguments;
      this.calls.set(delta.index, call);
    }
  }

  done(): ToolCall[] {
    return [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
  }
}

export type CodeOrProblem = { code: string } | { problem: string };

/** The code of a `run_python` call, or why it cannot be run (told back to the model). */
export function codeOf(call: ToolCall): CodeOrProblem {
  if (call.function.name !== TOOL_NAME) return { problem: `unknown tool ${JSON.stringify(call.function.name)}` };
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || "{}");
  } catch {
    return { problem: "the arguments are not valid JSON" };
  }
  const code = (args as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.trim() ? { code } : { problem: "the `code` argument is missing" };
}

const FENCE = /```(?:json|tool_call|tool)?\s*\n([\s\S]*?)\n?```/g;

/** A `run_python` call written as a fenced JSON block in plain text, in the shapes models use. */
export function fencedToolCall(text: string): { code: string; block: string } | null {
  for (const match of text.matchAll(FENCE)) {
    let value: unknown;
    try {
      value = JSON.parse(match[1] ?? "");
    } catch {
      continue;
    }
    const code = fencedCode(value);
    if (code !== null) return { code, block: match[0] };
  }
  return null;
}

function fencedCode(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  const v = value as Record<string, unknown>;
  const name = v.name ?? v.tool ?? v.function ?? (v.function_call as Record<string, unknown> | undefined)?.name;
  if (name !== TOOL_NAME) return null;
  let args = v.arguments ?? v.parameters ?? v.args ?? v;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return null;
    }
  }
  const code = (args as Record<string, unknown> | null)?.code;
  return typeof code === "string" && code.trim() ? code : null;
}
