// The model a site ships (`wasmbox export DIR --model FILE.gguf` writes models/local-model.json).
export interface ShippedModel {
  url: string;
  name: string;
  sha256: string;
  bytes: number;
}

/** The shipped model's description, or null where there is none (e.g. `wasmbox serve`). */
export async function fetchShippedModel(): Promise<ShippedModel | null> {
  // Relative: the app may live under a sub-path. Offline, the service worker has it precached.
  const response = await fetch("models/local-model.json").catch(() => null);
  if (!response?.ok || !response.headers.get("Content-Type")?.includes("json")) return null;
  const data = (await response.json().catch(() => null)) as Partial<ShippedModel> | null;
  if (typeof data?.url !== "string" || typeof data.sha256 !== "string") return null;
  return {
    url: data.url,
    name: typeof data.name === "string" ? data.name : data.url,
    sha256: data.sha256,
    bytes: typeof data.bytes === "number" ? data.bytes : 0,
  };
}
