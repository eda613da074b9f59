// The chat endpoint a user enters on a static host (web/src/api/endpoint.ts): what is accepted,
// what is kept, and the network policy the page derives from it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectPolicy, loadEndpoint, parseEndpoint, saveEndpoint } from "../../web/src/api/endpoint.js";

class MemoryStorage implements Pick<Storage, "getItem" | "setItem" | "removeItem"> {
  private readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

const storage = (): Storage => new MemoryStorage() as unknown as Storage;

test("a base URL is kept without its trailing slash", () => {
  assert.deepEqual(parseEndpoint(" http://127.0.0.1:11434/v1/ ", "qwen", ""), {
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "qwen",
    apiKey: "",
  });
});

test("entries that cannot be an endpoint are refused with a reason", () => {
  const refused: [string, string, RegExp][] = [
    ["localhost:11434", "m", /http: or https:/],
    ["not a url", "m", /is not a URL/],
    ["ftp://host/v1", "m", /http: or https:/],
    ["https://user:key@host/v1", "m", /API key field/],
    ["https://host/v1?x=1", "m", /no \? or #/],
    ["https://host/v1", "  ", /model name/],
  ];
  for (const [url, model, reason] of refused) {
    const result = parseEndpoint(url, model, "");
    assert.ok(result instanceof Error, url);
    assert.match(result.message, reason, url);
  }
});

test("a saved endpoint comes back; a tampered one is ignored", () => {
  const kept = storage();
  const endpoint = parseEndpoint("https://api.example.com/v1", "gpt", "sk-1");
  assert.ok(!(endpoint instanceof Error));
  saveEndpoint(endpoint, kept);
  assert.deepEqual(loadEndpoint(kept), endpoint);
  kept.setItem("wasmbox-endpoint", JSON.stringify({ baseUrl: "javascript:alert(1)", model: "m" }));
  assert.equal(loadEndpoint(kept), null);
  kept.setItem("wasmbox-endpoint", "{not json");
  assert.equal(loadEndpoint(kept), null);
  assert.equal(loadEndpoint(null), null);
});

test("the page may connect to its own files and the endpoint's origin only", () => {
  assert.equal(connectPolicy(null), "connect-src 'self'");
  const endpoint = parseEndpoint("http://127.0.0.1:11434/v1", "m", "");
  assert.ok(!(endpoint instanceof Error));
  assert.equal(connectPolicy(endpoint), "connect-src 'self' http://127.0.0.1:11434");
});
