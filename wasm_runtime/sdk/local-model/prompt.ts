// What a local model is sent. Prompt tokens are the slow part in a page, so by default the agent's
// system prompt is replaced with a compact one that keeps what describes this session (files and
// their preview, a resume, host tools), and a model whose chat template has no tool support is
// told the text form of a call, which the agent reads (`<tool_call>`, docs/agent.md), instead of
// being sent a tool schema it cannot follow.
import type { ChatMessage } from "../agent/chat-types.js";
import { contextSectionsOf } from "../agent/prompt.js";

export type SystemPromptMode = "compact" | "as-sent";

const COMPACT = [
  "You answer questions by running Python with the run_python tool, then explaining the real output.",
  "Python runs in the user's browser (Pyodide) with numpy, pandas, matplotlib, scipy and sympy; no network, no pip.",
  "Use run_python for any computation: never guess a number you could compute. Print what you need to read.",
  "Variables and files persist between runs. When a run fails, fix the code and run it again.",
].join("\n");

const TEXT_TOOLS = [
  "To run Python, reply with only this, the code as a JSON string:",
  '<tool_call>{"name": "run_python", "arguments": {"code": "print(1 + 1)"}}</tool_call>',
  "You get the output in the next message. Then answer in plain words.",
].join("\n");

/** True when the template can render a tool schema and tool calls (Qwen, Llama 3.1, Hermes, …). */
export const templateHasTools = (template: string | null): boolean => template !== null && /\btools\b/.test(template);

export function localMessages(messages: ChatMessage[], mode: SystemPromptMode, textTools: boolean): ChatMessage[] {
  const [first, ...rest] = messages;
  if (first?.role !== "system" || (mode === "as-sent" && !textTools)) return messages;
  const parts = mode === "compact" ? [COMPACT, ...contextSectionsOf(first.content)] : [first.content];
  if (textTools) parts.push(TEXT_TOOLS);
  return [{ role: "system", content: parts.filter(Boolean).join("\n\n") }, ...rest];
}
