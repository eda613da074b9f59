// Pyodide compiles its wasm only once the start-up snapshot has arrived (it needs the snapshot's
// size first), so the wasm's compile and the snapshot's delivery ran one after the other.
// Instead the wasm is compiled as soon as its bytes arrive, and Pyodide's instantiateStreaming
// of that same response gets the compiled module.
import { bootStep } from "./boot-steps.js";

const compiled = new WeakMap<Response, Promise<WebAssembly.Module>>();

/** A Response for wasm bytes whose compile starts now. */
export function compilingResponse(bytes: Uint8Array<ArrayBuffer>, headers: HeadersInit): Response {
  const response = new Response(bytes, { headers });
  const module = WebAssembly.compile(bytes);
  module.catch(() => undefined); // instantiateStreaming below compiles again and reports it
  compiled.set(response, module);
  return response;
}

/**
 * Run `boot` with WebAssembly.instantiateStreaming taking a response's compiled module when
 * compilingResponse made it; anything else, and everything after `boot`, is as before.
 */
export async function withPrecompiledWasm<T>(boot: () => Promise<T>): Promise<T> {
  const original = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    bootStep("instantiate"); // Pyodide's module is set up; from here its wasm is instantiated and booted
    const module = await compiled.get(response)?.catch(() => null);
    if (!module) return original(response, imports);
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  };
  try {
    return await boot();
  } finally {
    WebAssembly.instantiateStreaming = original;
  }
}
