// A persisted sandbox's save whose capture fails (a listing refused over its cap, a dead worker)
// loses nothing: the next save asks again for every file and the variables it would have taken.
import assert from "node:assert/strict";
import { test } from "node:test";

Object.assign(globalThis, { __WASMBOX_FRAME_SHA256__: "test" });
const { PersistedSession, newRecord } = await import("../../wasm_runtime/sdk/session/persisted.js");
type Engine = import("../../wasm_runtime/sdk/engine.js").Engine;
type Activity = import("../../wasm_runtime/sdk/activity.js").Activity;
type Request = Parameters<Engine["call"]>[0];

/** A worker that lists `listing` (or refuses to, as over its cap) and records what it was asked. */
function fakeEngine(listing: () => { path: string; size: number }[] | null) {
  const asked: Request[] = [];
  const engine = {
    call: async (request: Request) => {
      asked.push(request);
      if (request.type === "save-state")
        return { type: "state", id: 0, state: { data: new Uint8Array([1]), skipped: [], packages: [] } };
      if (request.type === "list-files") {
        const files = listing();
        if (!files) return { type: "failed", id: 0, error: { name: "RequestFailed", message: "over its cap" } };
        return { type: "files", id: 0, files: files.map((f) => ({ ...f, mime: "text/plain" })) };
      }
      if (request.type === "read-files")
        return { type: "file-batch", id: 0, files: request.paths.map((path) => ({ path, data: new Uint8Array(0) })) };
      throw new Error(`unexpected ${request.type}`);
    },
  };
  return { engine: engine as unknown as Engine, asked };
}

const current = () => ({ history: [], appData: null });

test("a save whose listing is refused leaves its files and variables for the next save", async () => {
  const settings = {} as ConstructorParameters<typeof PersistedSession>[0]["settings"];
  const session = new PersistedSession(newRecord("s", settings, 1), () => undefined, false, {} as Activity);
  session.markFiles(["a.txt", "b.txt"]);
  session.markState();
  let refuse = true;
  const { engine, asked } = fakeEngine(() =>
    refuse
      ? null
      : [
          { path: "a.txt", size: 0 },
          { path: "b.txt", size: 0 },
        ],
  );
  await assert.rejects(session.snapshot(engine, current), /over its cap/);
  assert.equal(session.recordOnly([], null), null, "the failed save's changes are still to save");

  refuse = false;
  asked.length = 0;
  const batch = await session.snapshot(engine, current);
  assert.deepEqual([...batch.put.keys()].sort(), ["a.txt", "b.txt"]);
  assert.ok(batch.state, "the variables are pickled again");
  assert.deepEqual(Object.keys(batch.record.files).sort(), ["a.txt", "b.txt"]);
  assert.ok(session.recordOnly([], null), "then nothing is left to save");
});

test("a fresh session's failed first save still saves every file the next time", async () => {
  const settings = {} as ConstructorParameters<typeof PersistedSession>[0]["settings"];
  const session = new PersistedSession(newRecord("f", settings, 1), () => undefined, true, {} as Activity);
  let refuse = true;
  const { engine } = fakeEngine(() => (refuse ? null : [{ path: "kept.csv", size: 0 }]));
  await assert.rejects(session.snapshot(engine, current));
  refuse = false;
  const batch = await session.snapshot(engine, current);
  assert.deepEqual([...batch.put.keys()], ["kept.csv"]);
});
