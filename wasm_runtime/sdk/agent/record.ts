// Run code and record it as two parts of a turn (the code, then its result), reporting each step.
// The agent's runs and the app's console runs both go through here.
import type { ExecutionResult } from "../../protocol/types.js";
import type { ExecuteOptions } from "../options.js";
import type { Tools } from "../tools.js";
import { outputText } from "./model-result.js";
import type { Part, Turn } from "./transcript.js";

export type CodePart = Extract<Part, { kind: "executable_code" }>;
export type ResultPart = Extract<Part, { kind: "code_execution_result" }>;

/** What a run needs of a sandbox: the SDK's `Sandbox`, or a stand-in with its `execute`. */
export interface RunSandbox {
  execute(
    code: string,
    options: Pick<ExecuteOptions, "onStdout" | "onStderr" | "onImport" | "signal" | "tools" | "onInput">,
  ): Promise<ExecutionResult>;
}

export interface RecordHooks {
  onCode?: (part: CodePart) => void;
  onOutput?: (callId: string, stream: "stdout" | "stderr", text: string) => void;
  /** The run imported a module a page readies for (plotly, altair): `ExecuteOptions.onImport`. */
  onImport?: (callId: string, module: string) => void;
  onResult?: (part: ResultPart) => void;
  /** Answers the run's input() (the app's console asks the user); without it input() raises EOFError. */
  onInput?: (callId: string, prompt: string) => Promise<string | null>;
}

export async function recordRun(
  sandbox: RunSandbox,
  turn: Turn,
  code: string,
  callId: string,
  signal: AbortSignal,
  hooks: RecordHooks = {},
  tools?: Tools,
): Promise<ExecutionResult> {
  const codePart: CodePart = { kind: "executable_code", callId, language: "python", code };
  turn.parts.push(codePart);
  hooks.onCode?.(codePart);
  const result = await sandbox.execute(code, {
    signal,
    ...(tools ? { tools } : {}),
    ...(hooks.onInput ? { onInput: (prompt: string) => hooks.onInput!(callId, prompt) } : {}),
    onStdout: (text) => hooks.onOutput?.(callId, "stdout", text),
    onStderr: (text) => hooks.onOutput?.(callId, "stderr", text),
    onImport: (module) => hooks.onImport?.(callId, module),
  });
  const resultPart: ResultPart = {
    kind: "code_execution_result",
    callId,
    outcome: result.outcome,
    output: outputText(result),
    result,
  };
  turn.parts.push(resultPart);
  hooks.onResult?.(resultPart);
  return result;
}
