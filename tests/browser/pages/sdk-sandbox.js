// Exposes the SDK to the tests, plus small helpers that keep results JSON-friendly.
import { Agent, Sandbox, SandboxError } from "../sdk/wasmbox.js";

const streams = { stdout: [], stderr: [] };

window.wasmbox = {
  Sandbox,
  Agent,
  SandboxError,
  streams,
  /** Whether runs here can be interrupted (state kept): the SDK's mode, as a live sandbox reports it. */
  get isolated() {
    const modes = Sandbox.list()
      .map(({ id }) => Sandbox.get(id)?.mode)
      .filter(Boolean);
    if (modes.length) return modes.includes("interrupt");
    return crossOriginIsolated && typeof SharedArrayBuffer === "function";
  },
  /** Run code in a sandbox by id; streamed chunks are collected in `streams`. */
  async run(id, code, options = {}) {
    streams.stdout.length = 0;
    streams.stderr.length = 0;
    return Sandbox.get(id).execute(code, {
      ...options,
      onStdout: (text) => streams.stdout.push(text),
      onStderr: (text) => streams.stderr.push(text),
    });
  },
};
window.sdkReady = true;

// Storage the isolation tests seed before an attack and compare afterwards.
const broadcasts = [];
new BroadcastChannel("app").onmessage = (event) => broadcasts.push(event.data);

function idb(write) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open("app-db", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("kv");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const tx = open.result.transaction("kv", write ? "readwrite" : "readonly");
      const store = tx.objectStore("kv");
      const request = write ? store.put("app-secret", "token") : store.get("token");
      tx.oncomplete = () => (open.result.close(), resolve(request.result ?? null));
      tx.onerror = () => reject(tx.error);
    };
  });
}

window.appStorage = {
  async seed() {
    localStorage.setItem("token", "app-secret");
    document.cookie = "token=app-secret; path=/";
    await idb(true);
    await (await caches.open("app-cache")).put("/token", new Response("app-secret"));
  },
  async snapshot() {
    const cached = await (await caches.open("app-cache")).match("/token");
    return {
      local: { ...localStorage },
      cookie: document.cookie,
      idb: await idb(false),
      idbNames: (await indexedDB.databases()).map((d) => d.name).sort(),
      cache: cached ? await cached.text() : null,
      cacheNames: (await caches.keys()).sort(),
      broadcasts: [...broadcasts],
    };
  },
};

// Host tools for the bridge's tests (test_host_tools.py): each handler logs its calls here, so a
// test can tell whether a refused call ever reached it.
const toolLog = [];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const nested = (depth) => (depth === 0 ? 0 : [nested(depth - 1)]);
function badValue(kind) {
  if (kind === "function") return { f: () => 1 };
  if (kind === "cycle") {
    const cycle = { name: "loop" };
    cycle.self = cycle;
    return cycle;
  }
  if (kind === "map") return new Map([["a", 1]]);
  if (kind === "window") return { page: window };
  if (kind === "deep") return nested(200);
  if (kind === "huge") return "x".repeat(2 * 1024 * 1024);
  if (kind === "nan") return [NaN];
  return null;
}
const testTools = {
  echo: {
    description: "Gives back its value.",
    parameters: { type: "object", properties: { value: {} }, required: ["value"], additionalProperties: false },
    handler: (args) => (toolLog.push(["echo", args]), { got: args.value }),
  },
  price: {
    description: "The price of a product, in euros.",
    parameters: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"] },
    handler: ({ sku }) => {
      toolLog.push(["price", { sku }]);
      if (sku !== "A1") throw new Error(`no such sku: ${sku}`);
      return { sku, eur: 9.5 };
    },
  },
  slow: {
    description: "Answers after `ms` milliseconds.",
    parameters: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
    handler: async ({ ms }) => (toolLog.push(["slow", { ms }]), await sleep(ms), "late"),
  },
  bad: {
    description: "Answers with something that is not JSON data.",
    parameters: { type: "object", properties: { kind: { type: "string" } }, required: ["kind"] },
    handler: ({ kind }) => (toolLog.push(["bad", { kind }]), badValue(kind)),
  },
};
window.hostTools = {
  log: toolLog,
  create: (options = {}) => Sandbox.create({ ...options, tools: testTools }).then((s) => s.id),
  /** A saved sandbox again, with the test tools granted again or none. */
  resume: (id, granted) => Sandbox.resume(id, granted ? { tools: testTools } : {}).then((s) => s.resumeReport),
  /** Run code whose input() calls get `lines` in turn (null: the host ends the input). */
  runWithInput(id, code, lines, options = {}) {
    const prompts = [];
    const result = Sandbox.get(id).execute(code, {
      ...options,
      onInput: async (prompt) => (prompts.push(prompt), lines.shift() ?? null),
    });
    return result.then((r) => ({ ...r, prompts }));
  },
  /** The page is unharmed: no prototype touched, and its own objects still work. */
  pageIntact: () =>
    ({}).polluted === undefined &&
    Object.prototype.polluted === undefined &&
    Array.prototype.polluted === undefined &&
    JSON.stringify({ a: [1] }) === '{"a":[1]}',
};
