// A ChatFn over HTTP for any OpenAI-compatible server (the app's proxy is one: `{ baseUrl: "/api" }`).
// Streamed answers arrive as deltas; a non-streamed answer arrives as one delta. Every way the
// server can fail becomes a ChatError with a type. Aborting the signal closes the connection.
import { EventSourceParserStream } from "eventsource-parser/stream";
import { ChatError, type ChatDelta, type ChatFn, type ChatRequest } from "./chat-types.js";

export interface HttpChatOptions {
  /** Up to and including `/v1` (`https://api.openai.com/v1`, `http://localhost:11434/v1`, `/api`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`. A key in a web page is visible to its users: use a proxy for shared keys. */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

interface ErrorBody {
  error?: { message?: unknown; type?: unknown; code?: unknown } | string;
}

function errorFields(body: unknown): { message: string | null; code: string | null } {
  const error = (body as ErrorBody | null)?.error;
  if (typeof error === "string") return { message: error, code: null };
  const text = (v: unknown): string | null => (typeof v === "string" && v ? v : null);
  return { message: text(error?.message), code: text(error?.code) ?? text(error?.type) };
}

async function httpFailure(response: Response): Promise<ChatError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: keep the status text
  }
  const { message, code } = errorFields(body);
  const retryAfter = Number(response.headers.get("Retry-After"));
  return new ChatError(
    "http",
    message ?? `${response.status} ${response.statusText}`.trim(),
    response.status,
    code,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
}

/** One SSE `data:` payload as a delta; null for chunks without a choice (usage-only chunks). */
export function deltaOf(data: string): ChatDelta | null {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new ChatError("malformed", "the model's stream was not valid JSON");
  }
  if (typeof chunk !== "object" || chunk === null) return null;
  if ("error" in chunk) {
    const { message, code } = errorFields(chunk);
    throw new ChatError("cut-stream", message ?? "the model's stream failed", null, code);
  }
  const choice = (chunk as { choices?: { delta?: ChatDelta; finish_reason?: string | null }[] }).choices?.[0];
  if (!choice) return null;
  return { ...(choice.delta ?? {}), finishReason: choice.finish_reason ?? null };
}

/** A non-streamed completion's message as one delta. */
export function messageDelta(body: unknown): ChatDelta {
  const choice = (body as { choices?: { message?: unknown; finish_reason?: string | null }[] } | null)?.choices?.[0];
  const message = choice?.message as { content?: unknown; tool_calls?: unknown } | undefined;
  if (!message || typeof message !== "object") throw new ChatError("malformed", "the model's answer has no message");
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    content: typeof message.content === "string" ? message.content : null,
    tool_calls: calls.map((call, index) => ({ ...(call as object), index })),
    finishReason: choice?.finish_reason ?? null,
  };
}

async function* readStream(response: Response): AsyncGenerator<ChatDelta> {
  if (!response.body) throw new ChatError("empty-stream", "the model sent no body");
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || value.data === "[DONE]") break;
      const delta = deltaOf(value.data);
      if (!delta) continue;
      received += 1;
      if (delta.finishReason) finished = true;
      yield delta;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (received === 0) throw new ChatError("empty-stream", "the LLM server sent an empty stream");
  if (!finished) throw new ChatError("cut-stream", "the model's stream stopped before the model finished");
}

/** A ChatFn that POSTs to `${baseUrl}/chat/completions`. */
export function httpChat(options: HttpChatOptions): ChatFn {
  if (typeof options.baseUrl !== "string" || !options.baseUrl) throw new TypeError("chat.baseUrl must be a URL");
  const endpoint = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  return async function* chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatDelta> {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: request.stream ? "text/event-stream" : "application/json",
      ...options.headers,
    };
    if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
    let response: Response;
    try {
      response = await doFetch(endpoint, { method: "POST", headers, body: JSON.stringify(request), signal });
    } catch (error) {
      signal.throwIfAborted();
      throw new ChatError("network", `could not reach ${endpoint}: ${error instanceof Error ? error.message : error}`);
    }
    if (!response.ok) throw await httpFailure(response);
    if (!request.stream) {
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        throw new ChatError("malformed", "the model's answer is not JSON");
      }
      yield messageDelta(body);
      return;
    }
    const type = response.headers.get("Content-Type") ?? "";
    if (!type.startsWith("text/event-stream")) {
      // Some servers ignore `stream: true` when tools are given and answer with one JSON message.
      if (type.startsWith("application/json")) {
        yield messageDelta(await response.json().catch(() => null));
        return;
      }
      throw new ChatError("malformed", `the server answered ${type || "without a content type"}, not an event stream`);
    }
    yield* readStream(response);
  };
}
