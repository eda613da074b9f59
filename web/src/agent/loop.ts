// The code-execution agent: stream the model's turn → run its `run_python` calls in the sandbox →
// send back the results → repeat until it answers in text or the step limit is reached.
import type { ExecutionResult } from "wasmbox";
import type { ChatDelta, ChatMessage, ChatRequest, ToolCall } from "../api/chat-types.js";
import { outputText, resultForModel } from "./model-result.js";
import { RUN_PYTHON_TOOL, ToolCallAssembler, codeOf, fencedToolCall } from "./tool-calls.js";
import { appendText, startTurn, type Part, type Transcript, type Turn } from "./transcript.js";

export const DEFAULT_MAX_STEPS = 8;

/** What the agent needs of a sandbox (the SDK's `Sandbox` has it). */
export interface AgentSandbox {
  execute(
    code: string,
    options: { onStdout?: (text: string) => void; onStderr?: (text: string) => void; signal?: AbortSignal },
  ): Promise<ExecutionResult>;
}

export type AgentEvent =
  | { type: "turn"; turn: Turn }
  | { type: "text"; text: string }
  | { type: "code"; part: Extract<Part, { kind: "executable_code" }> }
  | { type: "output"; callId: string; stream: "stdout" | "stderr"; text: string }
  | { type: "result"; part: Extract<Part, { kind: "code_execution_result" }> }
  | { type: "step-limit"; steps: number };

export type ChatFn = (request: ChatRequest, signal: AbortSignal) => AsyncIterable<ChatDelta>;

export interface AgentOptions {
  model: string;
  chat: ChatFn;
  sandbox: AgentSandbox;
  onEvent: (event: AgentEvent) => void;
  maxSteps?: number;
}

interface ModelTurn {
  content: string;
  calls: ToolCall[];
}

export class Agent {
  readonly messages: ChatMessage[];
  /** Runs so far: transcript ids are ours, since servers may reuse tool-call ids across turns. */
  private runs = 0;

  constructor(
    system: string,
    readonly transcript: Transcript,
    private readonly options: AgentOptions,
  ) {
    this.messages = [{ role: "system", content: system }];
  }

  /** Keep the system prompt current (new files, new environment) without losing the history. */
  updateSystemPrompt(system: string): void {
    this.messages[0] = { role: "system", content: system };
  }

  /** One user message, answered with as many runs as the model needs (up to the step limit). */
  async send(text: string, signal: AbortSignal): Promise<void> {
    const { onEvent } = this.options;
    this.messages.push({ role: "user", content: text });
    const userTurn = startTurn(this.transcript, "user");
    userTurn.parts.push({ kind: "text", text });
    onEvent({ type: "turn", turn: userTurn });
    const turn = startTurn(this.transcript, "model");
    onEvent({ type: "turn", turn });

    const maxSteps = this.options.maxSteps ?? DEFAULT_MAX_STEPS;
    for (let step = 1; step <= maxSteps; step += 1) {
      const reply = await this.streamModel(turn, signal);
      if (reply.calls.length > 0) {
        this.messages.push({ role: "assistant", content: reply.content || null, tool_calls: reply.calls });
        for (const call of reply.calls) {
          const content = await this.runCall(turn, call, signal);
          this.messages.push({ role: "tool", tool_call_id: call.id, content });
        }
        continue;
      }
      this.messages.push({ role: "assistant", content: reply.content });
      const fenced = fencedToolCall(reply.content);
      if (!fenced) return;
      // A model without function calling wrote the call as text: run it and answer as the user.
      const result = await this.runCode(turn, fenced.code, signal);
      this.messages.push({ role: "user", content: `Result of run_python:\n${resultForModel(result)}` });
    }
    onEvent({ type: "step-limit", steps: maxSteps });
  }

  private async streamModel(turn: Turn, signal: AbortSignal): Promise<ModelTurn> {
    const calls = new ToolCallAssembler();
    let content = "";
    const request: ChatRequest = {
      model: this.options.model,
      messages: this.messages,
      tools: [RUN_PYTHON_TOOL],
      tool_choice: "auto",
      stream: true,
    };
    for await (const delta of this.options.chat(request, signal)) {
      if (delta.content) {
        content += delta.content;
        appendText(turn, delta.content);
        this.options.onEvent({ type: "text", text: delta.content });
      }
      if (delta.tool_calls) calls.add(delta.tool_calls);
    }
    return { content, calls: calls.done() };
  }

  private async runCall(turn: Turn, call: ToolCall, signal: AbortSignal): Promise<string> {
    const parsed = codeOf(call);
    if ("problem" in parsed) return JSON.stringify({ outcome: "INVALID_CALL", error: parsed.problem });
    return resultForModel(await this.runCode(turn, parsed.code, signal));
  }

  private async runCode(turn: Turn, code: string, signal: AbortSignal): Promise<ExecutionResult> {
    const { onEvent, sandbox } = this.options;
    const callId = `run_${++this.runs}`;
    const codePart = { kind: "executable_code" as const, callId, language: "python" as const, code };
    turn.parts.push(codePart);
    onEvent({ type: "code", part: codePart });
    const result = await sandbox.execute(code, {
      signal,
      onStdout: (text) => onEvent({ type: "output", callId, stream: "stdout", text }),
      onStderr: (text) => onEvent({ type: "output", callId, stream: "stderr", text }),
    });
    const resultPart = {
      kind: "code_execution_result" as const,
      callId,
      outcome: result.outcome,
      output: outputText(result),
      result,
    };
    turn.parts.push(resultPart);
    onEvent({ type: "result", part: resultPart });
    signal.throwIfAborted();
    return result;
  }
}
