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
