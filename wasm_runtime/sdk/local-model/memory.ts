// Will the model fit? Checked before the engine allocates, so a model too large for the device
// says so instead of crashing the tab.
import { LocalModelError } from "./errors.js";
import type { GgufShape } from "./gguf.js";

const GiB = 2 ** 30;
/** The engine's compute buffers and runtime beside the weights and the cache. */
const OVERHEAD = 256 * 2 ** 20;
/** A wasm64 heap's ceiling in today's engines (16 GiB), and a 32-bit one's. */
const HEAP_64 = 16 * GiB;
const HEAP_32 = 4 * GiB;

/** Bytes of the key-value cache (f16 keys and values) for `contextSize` tokens. */
export function kvCacheBytes(shape: GgufShape, contextSize: number): number {
  const { layers, embedding, heads, headsKv } = shape;
  if (!layers || !embedding || !heads || !headsKv) return 0;
  const kvWidth = (embedding / heads) * headsKv;
  return 2 * layers * contextSize * kvWidth * 2;
}

export function memoryNeeded(weightsBytes: number, shape: GgufShape | null, contextSize: number): number {
  return weightsBytes + (shape ? kvCacheBytes(shape, contextSize) : 0) + OVERHEAD;
}

function supportsMemory64(): boolean {
  try {
    new WebAssembly.Memory({ address: "i64", initial: 1n } as unknown as WebAssembly.MemoryDescriptor);
    return true;
  } catch {
    return false;
  }
}

/**
 * What this page can give the model: half the device's memory where the browser says it
 * (`navigator.deviceMemory`, Chromium; rounded down, at most 8 GiB), within the heap's ceiling.
 */
export function memoryAvailable(): number {
  const heap = supportsMemory64() ? HEAP_64 : HEAP_32;
  const device = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
  return typeof device === "number" && device > 0 ? Math.min(heap, (device * GiB) / 2) : heap;
}

const mb = (n: number): string => `${Math.round(n / 2 ** 20)} MB`;

/** Refuse, with both figures, a model that would not fit. */
export function checkMemory(
  weightsBytes: number,
  shape: GgufShape | null,
  contextSize: number,
  available = memoryAvailable(),
): void {
  const required = memoryNeeded(weightsBytes, shape, contextSize);
  if (required > available)
    throw new LocalModelError(
      "too-large",
      `the model needs about ${mb(required)} (weights ${mb(weightsBytes)}, context of ${contextSize} tokens) but this page can use about ${mb(available)}`,
      { required, available },
    );
}
