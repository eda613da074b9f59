// Importing the SDK does no work: no storage read (IndexedDB, CacheStorage, Web Locks), no frame,
// worker or fetch. The registry and the saved sessions' catalog are made on first use.
import assert from "node:assert/strict";
import { test } from "node:test";

const touched: string[] = [];
const TRAPPED = ["indexedDB", "caches", "document", "Worker", "fetch", "navigator", "requestIdleCallback"];

function trapGlobals(): void {
  for (const name of TRAPPED) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        touched.push(name);
        return undefined;
      },
    });
  }
  // What the bundler writes into frame-doc.ts (scripts/build-js.mjs); a build constant, not work.
  Object.assign(globalThis, { __WASMBOX_FRAME_SCRIPT__: "", __WASMBOX_FRAME_SHA256__: "" });
}

test("importing the SDK touches no storage, frame, worker or network", async () => {
  trapGlobals();
  const sdk = await import("../../wasm_runtime/sdk/index.js");
  assert.equal(typeof sdk.Sandbox.create, "function");
  assert.deepEqual(touched, []);

  // The trap sees what the SDK does on first use: the catalog reads IndexedDB (absent here: no list).
  await sdk.Sandbox.loadSaved();
  assert.ok(touched.includes("indexedDB"), `touched: ${touched.join(", ")}`);
  assert.deepEqual(sdk.Sandbox.list(), []);
});
