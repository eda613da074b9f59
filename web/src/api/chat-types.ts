// The slice of the OpenAI chat-completions format the agent speaks.

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
}

/** One streamed chunk's `choices[0].delta`, plus why the choice finished when it did. */
export interface ChatDelta {
  content?: string | null;
  tool_calls?: ToolCallDelta[];
  finishReason?: string | null;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  tool_choice?: "auto" | "none";
  stream: true;
  temperature?: number;
}

/** A failed chat request, with the server's own short reason. */
export class ChatError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
    this.name = "ChatError";
  }
}
