// The engine: llama.cpp compiled to WebAssembly (@wllama/wllama), loaded only when a page uses a
// local model, from next to the SDK (build/js/sdk/local-model/, copied by the export). wllama runs
// the model in its own Web Worker of the host page; the sandbox frame never sees the model.
import type { Wllama } from "@wllama/wllama";
import { LocalModelError } from "./errors.js";

type WllamaModule = typeof import("@wllama/wllama");

export const ENGINE_URL = new URL("./local-model/wllama.js", import.meta.url).href;
export const ENGINE_WASM_URL = new URL("./local-model/wllama.wasm", import.meta.url).href;

export interface EngineOptions {
  threads: number;
  contextSize: number;
  gpu: boolean;
}

/** Threads the page can give the engine: several only where the page is cross-origin isolated. */
export function defaultThreads(): number {
  if (!globalThis.crossOriginIsolated) return 1;
  return Math.max(1, Math.min(navigator.hardwareConcurrency || 1, 8));
}

let engineModule: Promise<WllamaModule> | null = null;

function loadModule(): Promise<WllamaModule> {
  // A variable URL: the bundler leaves this import to the browser.
  const url = ENGINE_URL;
  engineModule ??= import(/* @vite-ignore */ url) as Promise<WllamaModule>;
  return engineModule;
}

// The engine logs every load step; a page's console keeps only its errors.
const quiet = { debug: () => {}, log: () => {}, warn: () => {}, error: console.error.bind(console) };

/** A loaded engine with the model in it. */
export async function startEngine(files: Blob[], options: EngineOptions): Promise<Wllama> {
  const { Wllama } = await loadModule();
  let engine: Wllama;
  try {
    engine = new Wllama({ default: ENGINE_WASM_URL }, { suppressNativeLog: true, logger: quiet });
  } catch (error) {
    throw new LocalModelError(
      "unsupported",
      `the engine cannot run here: ${error instanceof Error ? error.message : error}`,
    );
  }
  // Its compatibility build comes from a CDN: never. Browsers without JSPI use the plain build.
  engine.setCompat(null);
  try {
    await engine.loadModel(files, {
      n_ctx: options.contextSize,
      n_threads: options.threads,
      // One conversation at a time: its slot keeps the cached prefix between the agent's steps.
      n_parallel: 1,
      jinja: true,
      // The first real request warms the engine up anyway; a warm-up decode only delays loading.
      warmup: false,
      // In the WebAssembly build flash attention costs more CPU per generated token than plain
      // attention, the more so as the conversation grows (docs/local-model.md).
      flash_attn: false,
      n_gpu_layers: options.gpu ? undefined : 0,
    });
  } catch (error) {
    await engine.exit().catch(() => undefined);
    throw new LocalModelError(
      "load",
      `the engine could not load the model: ${error instanceof Error ? error.message : error}`,
    );
  }
  return engine;
}
