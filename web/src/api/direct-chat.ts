// The chat straight from this page to the user's endpoint (no wasmbox server in between). When the
// request gets no answer, a second, opaque request tells the two usual causes apart: a server that
// is down or mistyped answers neither; one that answers it refused this page's origin (CORS).
import { ChatError, httpChat, type ChatFn } from "wasmbox";
import type { Endpoint } from "./endpoint.js";

const isNetworkFailure = (e: unknown): boolean =>
  typeof e === "object" &&
  e !== null &&
  (e as { name?: unknown }).name === "ChatError" &&
  (e as ChatError).type === "network";

export function directChat(endpoint: Endpoint, doFetch: typeof fetch = globalThis.fetch.bind(globalThis)): ChatFn {
  const chat = httpChat({ baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey || undefined, fetch: doFetch });
  return async function* (request, signal) {
    try {
      yield* chat(request, signal);
    } catch (error) {
      if (!isNetworkFailure(error)) throw error;
      throw new ChatError("network", await explainNoAnswer(endpoint.baseUrl, doFetch, signal));
    }
  };
}

async function explainNoAnswer(baseUrl: string, doFetch: typeof fetch, signal: AbortSignal): Promise<string> {
  const origin = location.origin;
  // An opaque request is not subject to CORS: if it is answered, the server is there.
  const reachable = await doFetch(`${baseUrl}/models`, { mode: "no-cors", signal }).then(
    () => true,
    () => false,
  );
  signal.throwIfAborted();
  if (reachable) {
    return (
      `${baseUrl} answered, but does not allow requests from this page (${origin}): the server must send ` +
      `CORS headers for this origin (for Ollama, start it with OLLAMA_ORIGINS=${origin})`
    );
  }
  return `${baseUrl} did not answer: the server is not running, or the address is wrong`;
}
