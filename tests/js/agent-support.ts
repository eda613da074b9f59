// Test doubles for the agent loop: a scripted chat function and a sandbox that records what it ran.
import type { AgentSandbox } from "../../wasm_runtime/sdk/agent/agent.js";
import type { ChatDelta, ChatFn, ChatRequest } from "../../wasm_runtime/sdk/agent/chat-types.js";
import type { ExecutionResult } from "../../wasm_runtime/protocol/types.js";
import { emptyAudit } from "../../wasm_runtime/protocol/results.js";

/** One scripted answer: deltas to yield, or a function of the request (which may throw). */
export type Scripted = ChatDelta[] | ((request: ChatRequest, signal: AbortSignal) => AsyncIterable<ChatDelta>);

export class ScriptedChat {
  readonly requests: ChatRequest[] = [];
  private readonly script: Scripted[];

  constructor(...script: Scripted[]) {
    this.script = script;
  }

  readonly fn: ChatFn = (request, signal) => {
    // A deep copy: the agent keeps appending to the same messages array.
    this.requests.push(structuredClone(request));
    const next = this.script.shift();
    if (!next) throw new Error(`unscripted request ${this.requests.length}`);
    return typeof next === "function" ? next(request, signal) : deltas(next);
  };
}

async function* deltas(items: ChatDelta[]): AsyncGenerator<ChatDelta> {
  for (const item of items) yield item;
}

export const text = (...pieces: string[]): ChatDelta[] => [
  ...pieces.map((content) => ({ content })),
  { finishReason: "stop" },
];

export const toolCall = (code: string, id = "call_x", index = 0): ChatDelta[] => {
  const args = JSON.stringify({ code });
  const half = Math.floor(args.length / 2);
  return [
    {
      content: null,
      tool_calls: [{ index, id, type: "function", function: { name: "run_python", arguments: args.slice(0, half) } }],
    },
    { tool_calls: [{ index, function: { arguments: args.slice(half) } }] },
    { finishReason: "tool_calls" },
  ];
};

export function okResult(stdout: string, outcome: ExecutionResult["outcome"] = "OUTCOME_OK"): ExecutionResult {
  return {
    outcome,
    stdout,
    stderr: "",
    truncated: false,
    value: null,
    displays: [],
    files: [],
    error: null,
    audit: emptyAudit(""),
    policy: null,
    durationMs: 1,
    stateLost: false,
  };
}

/** Runs nothing: answers `ran <code>`; `hang` codes wait for the abort signal. */
export class RecordingSandbox implements AgentSandbox {
  readonly ran: string[] = [];

  async execute(
    code: string,
    options: { signal?: AbortSignal; onStdout?: (t: string) => void },
  ): Promise<ExecutionResult> {
    this.ran.push(code);
    if (code === "hang") {
      await new Promise<void>((resolve) => options.signal?.addEventListener("abort", () => resolve(), { once: true }));
      return okResult("", "OUTCOME_CANCELLED");
    }
    if (code.startsWith("fail")) return okResult("", "OUTCOME_FAILED");
    if (code.startsWith("slow")) return okResult("", "OUTCOME_DEADLINE_EXCEEDED");
    options.onStdout?.(`ran ${code}\n`);
    return okResult(`ran ${code}\n`);
  }
}
