// One agent request answered by the engine: the messages go through the model's own chat template
// (its tool-call format included); the streamed chunks come back as the deltas the agent reads.
// The engine keeps the conversation's prefix in its key-value cache (`cache_prompt`), so each
// agent step processes only what was added since the last one.
import type { ChatCompletionChunk, ChatCompletionMessage, ChatCompletionParams, ResultTimings } from "@wllama/wllama";
import type { ChatDelta, ChatRequest } from "../agent/chat-types.js";

/** What one request cost, from the engine's own counters. */
export interface LocalTimings {
  /** Prompt tokens taken from the cache (not processed again). */
  cachedTokens: number;
  promptTokens: number;
  promptPerSecond: number;
  generatedTokens: number;
  generationPerSecond: number;
  /** Wall time of the whole request, prompt included. */
  totalMs: number;
}

export type GenerationProgress =
  | { phase: "prompt"; processed: number; total: number; cached: number }
  | { phase: "generate"; tokens: number; tokensPerSecond: number };

export interface Sampling {
  maxTokens: number;
  temperature: number;
  seed: number;
}

/** The request in the engine's terms. */
export function engineParams(request: ChatRequest, sampling: Sampling, signal: AbortSignal): ChatCompletionParams {
  const params: ChatCompletionParams = {
    messages: request.messages as ChatCompletionMessage[],
    stream: true,
    abortSignal: signal,
    max_tokens: sampling.maxTokens,
    temperature: request.temperature ?? sampling.temperature,
    seed: sampling.seed,
    cache_prompt: true,
    // Chunks while the prompt is processed: progress for the page, and a chance to cancel.
    return_progress: true,
  };
  if (request.tools?.length) {
    params.tools = request.tools as ChatCompletionParams["tools"];
    params.tool_choice = request.tool_choice ?? "auto";
  }
  return params;
}

export function timingsOf(t: ResultTimings, totalMs: number): LocalTimings {
  return {
    cachedTokens: t.cache_n,
    promptTokens: t.prompt_n,
    promptPerSecond: t.prompt_per_second,
    generatedTokens: t.predicted_n,
    generationPerSecond: t.predicted_per_second,
    totalMs,
  };
}

/** The engine's chunks as deltas; progress and timings go to the callbacks. */
export async function* deltasOf(
  chunks: AsyncIterable<ChatCompletionChunk>,
  onProgress: (event: GenerationProgress) => void,
  onTimings: (timings: ResultTimings) => void,
): AsyncGenerator<ChatDelta> {
  let tokens = 0;
  let firstTokenAt = 0;
  for await (const chunk of chunks) {
    if (chunk.prompt_progress) {
      const { processed, total, cache } = chunk.prompt_progress;
      onProgress({ phase: "prompt", processed, total, cached: cache });
    }
    if (chunk.timings) onTimings(chunk.timings);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const { content, tool_calls } = choice.delta ?? {};
    if (content || tool_calls?.length) {
      tokens += 1;
      const now = performance.now();
      firstTokenAt ||= now;
      const seconds = (now - firstTokenAt) / 1000;
      onProgress({ phase: "generate", tokens, tokensPerSecond: seconds > 0 ? (tokens - 1) / seconds : 0 });
    }
    yield { content: content ?? null, tool_calls: tool_calls ?? null, finishReason: choice.finish_reason ?? null };
  }
}

/** A whole reply as one delta, for `stream: false` requests. */
export function joined(deltas: ChatDelta[]): ChatDelta {
  const content = deltas.map((d) => d.content ?? "").join("");
  const calls = deltas.flatMap((d) => d.tool_calls ?? []);
  const finishReason =
    deltas
      .map((d) => d.finishReason)
      .filter(Boolean)
      .pop() ?? null;
  return { content: content || null, tool_calls: calls.length ? calls : null, finishReason };
}
