// Streams a chat completion from the backend's proxy as deltas. Aborting the signal closes the
// connection, which the proxy turns into a cancelled upstream request.
import { EventSourceParserStream } from "eventsource-parser/stream";
import { ChatError, type ChatDelta, type ChatRequest } from "./chat-types.js";

const ENDPOINT = "/api/chat/completions";

interface ErrorBody {
  error?: { message?: unknown; type?: unknown };
}

function errorMessage(body: unknown, fallback: string): string {
  const message = (body as ErrorBody | null)?.error?.message;
  return typeof message === "string" && message ? message : fallback;
}

async function failure(response: Response): Promise<ChatError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: keep the status text
  }
  const retryAfter = Number(response.headers.get("Retry-After"));
  return new ChatError(
    errorMessage(body, `${response.status} ${response.statusText}`),
    response.status,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
}

/** Parse one SSE `data:` payload; null for chunks without a choice (usage-only chunks). */
export function deltaOf(data: string): ChatDelta | null {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    throw new ChatError("the model's stream was malformed", 502);
  }
  if (typeof chunk !== "object" || chunk === null) return null;
  if ("error" in chunk) throw new ChatError(errorMessage(chunk, "the model's stream failed"), 502);
  const choice = (chunk as { choices?: { delta?: ChatDelta; finish_reason?: string | null }[] }).choices?.[0];
  if (!choice) return null;
  return { ...(choice.delta ?? {}), finishReason: choice.finish_reason ?? null };
}

export async function* streamChat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatDelta> {
  const response = await fetch(ENDPOINT, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    body: JSON.stringify(request),
    credentials: "same-origin",
    signal,
  });
  if (!response.ok) throw await failure(response);
  if (!response.body) throw new ChatError("the model sent no body", 502);
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || value.data === "[DONE]") return;
      const delta = deltaOf(value.data);
      if (delta) yield delta;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
