// The slice of the OpenAI chat-completions format the agent speaks, and its failures.

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

/** A piece of a tool call. Servers differ: `index` or `id` may be missing, `arguments` may be an object. */
export interface ToolCallDelta {
  index?: number;
  id?: string | null;
  type?: "function";
  function?: { name?: string | null; arguments?: string | Record<string, unknown> | null };
}

/** One streamed chunk's `choices[0].delta` (or a whole non-streamed message), plus its finish reason. */
export interface ChatDelta {
  content?: string | null;
  tool_calls?: ToolCallDelta[] | null;
  finishReason?: string | null;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  tool_choice?: "auto" | "none";
  /** false asks for one JSON answer; a chat function yields it as a single delta. */
  stream: boolean;
  temperature?: number;
}

/** What the agent calls to talk to a model: the app's proxy, any OpenAI-compatible server, or your own. */
export type ChatFn = (request: ChatRequest, signal: AbortSignal) => AsyncIterable<ChatDelta>;

/**
 * Why a model request failed, as a string `type`:
 * - `http`: the server answered with an HTTP error (`status`, and the server's `code` when it gave one);
 * - `network`: no answer at all (server down, wrong address, CORS);
 * - `empty-stream`: a streamed answer with nothing in it;
 * - `cut-stream`: the stream stopped before the model finished;
 * - `malformed`: the answer is not the OpenAI format;
 * - `empty-reply`: the model answered with neither text nor a tool call.
 */
export type ChatErrorType = "http" | "network" | "empty-stream" | "cut-stream" | "malformed" | "empty-reply";

export class ChatError extends Error {
  override readonly name = "ChatError";

  constructor(
    readonly type: ChatErrorType,
    message: string,
    readonly status: number | null = null,
    /** The server's own error code (`error.code` or `error.type`), e.g. `upstream_malformed`. */
    readonly code: string | null = null,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }

  /** What the user can try, in a sentence. */
  get hint(): string {
    return hintFor(this);
  }
}

const TIMEOUT_HINT =
  "The model took too long: try again, or a smaller model (a slow local server may need a larger WASMBOX_UPSTREAM_READ_TIMEOUT_S on the wasmbox server).";

function hintFor(error: ChatError): string {
  switch (error.type) {
    case "network":
      return "Check that the LLM server is running and reachable at its base URL, then send the message again.";
    case "empty-stream":
      return "The server sent nothing back. Try again, another model, or turn streaming off for this model.";
    case "cut-stream":
      if (error.code === "upstream_timeout") return TIMEOUT_HINT;
      return "The reply was cut off. Send the message again; if it keeps happening, check the LLM server's log.";
    case "malformed":
      return "The server did not answer in the OpenAI format: check that the base URL ends in /v1 of an OpenAI-compatible server.";
    case "empty-reply":
      return "The model answered with nothing. Send the message again, rephrase it, or choose a larger model.";
    case "http":
      return httpHint(error);
  }
}

function httpHint({ status, code, retryAfterS }: ChatError): string {
  if (status === 401 || status === 403) return "Check the API key (or the server's access token).";
  if (status === 404) return "Check the base URL and the model name.";
  if (status === 413) return "The conversation is too long: start a new one or send less.";
  if (status === 429)
    return retryAfterS
      ? `Wait ${retryAfterS} s, then send the message again.`
      : "Wait a moment, then send the message again.";
  if (code === "model_not_allowed" || code === "llm_not_configured") return "Choose a model this server offers.";
  if (status === 504 || code === "upstream_timeout") return TIMEOUT_HINT;
  if (status !== null && status >= 500)
    return "The LLM server failed: check that it is running, then send the message again.";
  return "Check the request settings (model, base URL), then send the message again.";
}
