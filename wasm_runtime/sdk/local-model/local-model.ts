// `localModel(options)`: a ChatFn whose model runs in the page. The weights come from the page's
// store, the origin, or a file the user picked; the engine (llama.cpp in WebAssembly) runs in its
// own worker of the host page. Nothing is sent anywhere: the conversation never leaves the page.
//
//   const chat = localModel({ url: "models/smollm2.gguf", sha256, onProgress });
//   const agent = await Agent.create({ sandbox, model: "smollm2", chat });
import type { Wllama } from "@wllama/wllama";
import type { ChatDelta, ChatFn, ChatRequest } from "../agent/chat-types.js";
import { deltasOf, engineParams, joined, timingsOf, type GenerationProgress, type LocalTimings } from "./chat.js";
import { defaultThreads, startEngine } from "./engine.js";
import { LocalModelError } from "./errors.js";
import { readGguf } from "./gguf.js";
import { checkMemory } from "./memory.js";
import { localMessages, templateHasTools, type SystemPromptMode } from "./prompt.js";
import { weightsFromFiles, weightsFromUrl, type Weights, type WeightsProgress } from "./weights.js";

export const DEFAULT_CONTEXT_SIZE = 4096;
export const DEFAULT_MAX_TOKENS = 1024;

export interface LocalModelOptions {
  /** The GGUF's URL (same origin, or any the page may fetch); a split model's first shard. */
  url?: string;
  /** A picked or dropped GGUF (or a split model's shards, in order). */
  file?: Blob | Blob[];
  /** The expected hex digest (one per file of a split model): other bytes are refused. */
  sha256?: string | string[];
  /** Engine threads; more than one needs a cross-origin isolated page (the default uses them there). */
  threads?: number;
  /** Tokens the model can hold: the conversation, tool results and reply together (default 4096). */
  contextSize?: number;
  /** Longest reply, in tokens (default 1024). */
  maxTokens?: number;
  /** Sampling temperature when the request gives none (default 0.2). */
  temperature?: number;
  seed?: number;
  /** Use WebGPU where the browser has it (default true); the CPU is the fallback. */
  gpu?: boolean;
  /** "compact" (default): the agent's system prompt replaced by a short one (prompt tokens are slow here); "as-sent". */
  systemPrompt?: SystemPromptMode;
  /**
   * How tool calls travel: "template" sends the tool schema through the model's chat template (the
   * engine parses the calls; a template without tool support gets llama.cpp's JSON format, enforced
   * by a grammar); "text" describes the `<tool_call>` form in the system prompt. Default: "template"
   * when the model's template knows tools, else "text".
   */
  toolCalls?: "template" | "text";
  onProgress?: (event: LocalModelProgress) => void;
}

export interface LocalModelInfo {
  /** `localModel({ url: key })` loads these weights from the page's store, offline too. */
  key: string;
  bytes: number;
  fromStore: boolean;
  threads: number;
  multiThreaded: boolean;
  contextSize: number;
  architecture: string | null;
  /** Tool calls through the model's template (`tools` sent), or as text the agent reads (`<tool_call>`). */
  toolCalls: "template" | "text";
  /** From asking to a loaded model: reading the weights (store, file or network) and loading them. */
  loadMs: number;
}

export type LocalModelProgress =
  | WeightsProgress
  | { phase: "load"; bytes: number }
  | { phase: "ready"; info: LocalModelInfo }
  | GenerationProgress
  | { phase: "done"; timings: LocalTimings };

/** The chat function, plus the model's life: load it ahead of the first message, read its figures, free it. */
export interface LocalModel extends ChatFn {
  load(signal?: AbortSignal): Promise<LocalModelInfo>;
  readonly info: LocalModelInfo | null;
  /** The last request's figures (prompt and generation speed, cached prefix). */
  readonly lastTimings: LocalTimings | null;
  close(): Promise<void>;
}

const HEX = /^[0-9a-f]{64}$/i;

function digests(sha256: LocalModelOptions["sha256"]): string[] | null {
  if (sha256 === undefined) return null;
  const list = Array.isArray(sha256) ? sha256 : [sha256];
  for (const digest of list)
    if (typeof digest !== "string" || !HEX.test(digest))
      throw new TypeError(`sha256 must be 64 hex digits, got ${String(digest)}`);
  return list.map((d) => d.toLowerCase());
}

function checked(
  options: LocalModelOptions,
): Required<Pick<LocalModelOptions, "threads" | "contextSize" | "maxTokens" | "temperature" | "seed" | "gpu">> {
  const hasUrl = typeof options?.url === "string" && options.url.length > 0;
  const hasFile =
    options?.file instanceof Blob ||
    (Array.isArray(options?.file) && options.file.length > 0 && options.file.every((f) => f instanceof Blob));
  if (hasUrl === hasFile) throw new TypeError("localModel needs either url or file (a File or Blob)");
  const threads = options.threads ?? defaultThreads();
  const contextSize = options.contextSize ?? DEFAULT_CONTEXT_SIZE;
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  for (const [name, value] of Object.entries({ threads, contextSize, maxTokens }))
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return {
    threads,
    contextSize,
    maxTokens,
    temperature: options.temperature ?? 0.2,
    seed: options.seed ?? 0,
    gpu: options.gpu ?? true,
  };
}

export function localModel(options: LocalModelOptions): LocalModel {
  const settings = checked(options);
  const sha256 = digests(options.sha256);
  const progress = (event: LocalModelProgress): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // a throwing handler must not break loading or generation
    }
  };
  let engine: Promise<Wllama> | null = null;
  let info: LocalModelInfo | null = null;
  let lastTimings: LocalTimings | null = null;
  /** One request at a time: the engine has one slot, which keeps the cached prefix. */
  let queue: Promise<unknown> = Promise.resolve();

  async function open(signal?: AbortSignal): Promise<Wllama> {
    const started = performance.now();
    const weightsOptions = { sha256, signal, onProgress: progress };
    const weights: Weights = options.url
      ? await weightsFromUrl(options.url, weightsOptions)
      : await weightsFromFiles(Array.isArray(options.file) ? options.file : [options.file as Blob], weightsOptions);
    const first = weights.files[0] as Blob;
    const shape = await readGguf(first, weights.key.split("/").pop() ?? "the model");
    checkMemory(weights.bytes, shape, settings.contextSize);
    progress({ phase: "load", bytes: weights.bytes });
    const engineOptions = { threads: settings.threads, contextSize: settings.contextSize, gpu: settings.gpu };
    let loaded: Wllama;
    try {
      loaded = await startEngine(weights.files, engineOptions);
    } catch (error) {
      if (!settings.gpu) throw error;
      loaded = await startEngine(weights.files, { ...engineOptions, gpu: false }); // no usable GPU
    }
    info = {
      key: weights.key,
      bytes: weights.bytes,
      fromStore: weights.fromStore,
      threads: loaded.getNumThreads(),
      multiThreaded: loaded.isMultithread(),
      contextSize: settings.contextSize,
      architecture: shape.architecture,
      toolCalls: options.toolCalls ?? (templateHasTools(shape.chatTemplate) ? "template" : "text"),
      loadMs: Math.round(performance.now() - started),
    };
    progress({ phase: "ready", info });
    return loaded;
  }

  function load(signal?: AbortSignal): Promise<Wllama> {
    if (!engine) {
      engine = open(signal);
      engine.catch(() => {
        engine = null; // a failed load (a wrong file, a cancel) can be tried again
      });
    }
    return engine;
  }

  async function* answer(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatDelta> {
    const loaded = await load(signal);
    signal.throwIfAborted();
    const textTools = info?.toolCalls === "text";
    const messages = localMessages(request.messages, options.systemPrompt ?? "compact", textTools);
    const sent: ChatRequest = { ...request, messages, ...(textTools ? { tools: [] } : {}) };
    const started = performance.now();
    let engineTimings = null as Parameters<typeof timingsOf>[0] | null;
    let chunks;
    try {
      chunks = await loaded.createChatCompletion({
        ...engineParams(sent, settings, signal),
        stream: true,
      });
    } catch (error) {
      throw generationError(error, signal);
    }
    const deltas = deltasOf(chunks, progress, (t) => (engineTimings = t));
    try {
      if (request.stream) {
        yield* deltas;
      } else {
        const all: ChatDelta[] = [];
        for await (const delta of deltas) all.push(delta);
        yield joined(all);
      }
    } catch (error) {
      throw generationError(error, signal);
    }
    if (engineTimings) {
      lastTimings = timingsOf(engineTimings, Math.round(performance.now() - started));
      progress({ phase: "done", timings: lastTimings });
    }
  }

  const chat = function (request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatDelta> {
    return {
      [Symbol.asyncIterator]: () => serialized(answer(request, signal)),
    };
  } as LocalModel;

  /** Run the generator only after the previous request has finished with the engine. */
  async function* serialized(inner: AsyncGenerator<ChatDelta>): AsyncGenerator<ChatDelta> {
    const previous = queue;
    let release!: () => void;
    queue = new Promise<void>((resolve) => (release = resolve));
    try {
      await previous.catch(() => undefined);
      yield* inner;
    } finally {
      release();
    }
  }

  Object.defineProperties(chat, {
    info: { get: () => info },
    lastTimings: { get: () => lastTimings },
    load: { value: async (signal?: AbortSignal) => (await load(signal), info as LocalModelInfo) },
    close: {
      value: async () => {
        const current = engine;
        engine = null;
        info = null;
        if (current) await (await current.catch(() => null))?.exit();
      },
    },
  });
  return chat;
}

function generationError(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason ?? error;
  if (error instanceof Error && error.name === "AbortError") return error;
  if (typeof error === "object" && error !== null && (error as { name?: unknown }).name === "LocalModelError")
    return error;
  const message = error instanceof Error ? error.message : String(error);
  return new LocalModelError("generation", `the local model failed: ${message}`);
}
