// The chat endpoint a user enters where no wasmbox server answers (a static host): an
// OpenAI-compatible base URL, a model and an optional key. Kept in this browser's localStorage
// only: it is never in the export, never sent to the site, and never handed to the sandbox (the
// page makes the requests itself).

export interface Endpoint {
  /** Up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  apiKey: string;
}

const KEY = "wasmbox-endpoint";

/** A clean endpoint, or an Error saying what is wrong with the entry. */
export function parseEndpoint(baseUrl: string, model: string, apiKey: string): Endpoint | Error {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return new Error(`"${baseUrl.trim()}" is not a URL: enter one such as http://127.0.0.1:11434/v1`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return new Error("the endpoint must be an http: or https: URL");
  if (url.username || url.password) return new Error("put the key in the API key field, not in the URL");
  if (url.search || url.hash) return new Error("the base URL ends at its path (such as /v1): no ? or #");
  if (!model.trim()) return new Error("enter the model name the endpoint serves");
  return { baseUrl: url.href.replace(/\/+$/, ""), model: model.trim(), apiKey: apiKey.trim() };
}

/** The page's localStorage, or null where the browser refuses it (storage turned off). */
export function pageStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

export function loadEndpoint(storage: Storage | null = pageStorage()): Endpoint | null {
  let stored: unknown;
  try {
    stored = JSON.parse(storage?.getItem(KEY) ?? "null");
  } catch {
    return null;
  }
  if (typeof stored !== "object" || stored === null) return null;
  const { baseUrl, model, apiKey } = stored as Record<string, unknown>;
  if (typeof baseUrl !== "string" || typeof model !== "string") return null;
  const parsed = parseEndpoint(baseUrl, model, typeof apiKey === "string" ? apiKey : "");
  return parsed instanceof Error ? null : parsed;
}

/** Throws a readable error where the browser keeps no storage for this page. */
export function saveEndpoint(endpoint: Endpoint, storage: Storage | null = pageStorage()): void {
  if (!storage) throw new Error("this browser keeps no storage for this page, so the endpoint cannot be saved");
  storage.setItem(KEY, JSON.stringify(endpoint));
}

export function forgetEndpoint(storage: Storage | null = pageStorage()): void {
  storage?.removeItem(KEY);
}

/**
 * The page's network policy, narrowed to its own files and the endpoint's origin (none entered:
 * its own files only). Added before anything fetches; policies only ever narrow, so a changed
 * endpoint takes effect on the next load. The sandbox frame keeps its own `connect-src 'none'`.
 */
export function connectPolicy(endpoint: Endpoint | null): string {
  return `connect-src 'self'${endpoint ? ` ${new URL(endpoint.baseUrl).origin}` : ""}`;
}

export function applyConnectPolicy(endpoint: Endpoint | null, doc: Document = document): void {
  const meta = doc.createElement("meta");
  meta.httpEquiv = "Content-Security-Policy";
  meta.content = connectPolicy(endpoint);
  doc.head.prepend(meta);
}
