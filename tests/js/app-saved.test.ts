// The app's saved conversation: read back from a sandbox's appData, or rebuilt from its run
// history when the app saved none; and the list's size and last-use labels.
import assert from "node:assert/strict";
import { test } from "node:test";
import { okResult } from "./agent-support.js";

// The SDK's bundle gets the frame's hash at build time; the app's modules import the SDK.
Object.assign(globalThis, { __WASMBOX_FRAME_SHA256__: "test" });
const { savedConversation, titleFrom } = await import("../../web/src/app/saved.js");
const { formatBytes, lastUse } = await import("../../web/src/ui/conversation-list.js");

test("a saved transcript and its messages come back as they were", () => {
  const transcript = { format: "wasmbox-transcript" as const, version: 1 as const, model: "m", turns: [] };
  const messages = [{ role: "user" as const, content: "hi" }];
  assert.deepEqual(savedConversation({ transcript, messages }, []), { transcript, messages });
});

test("a sandbox saved without the app's data shows its runs as console turns", () => {
  const history = [{ code: "x = 1", result: okResult("one\n"), at: 0 }];
  const { transcript, messages } = savedConversation(null, history);
  assert.deepEqual(messages, []);
  assert.equal(transcript.turns.length, 1);
  const [code, result] = transcript.turns[0]!.parts;
  assert.deepEqual(code, { kind: "executable_code", callId: "history_1", language: "python", code: "x = 1" });
  assert.equal(result?.kind === "code_execution_result" && result.output, "one\n");
});

test("titles come from the first line, cut at 60 characters", () => {
  assert.equal(titleFrom("  plot it\nplease"), "plot it");
  assert.equal(titleFrom("a".repeat(80)), `${"a".repeat(59)}…`);
  assert.equal(titleFrom("   "), "Untitled");
});

test("sizes and last use read as a person would say them", () => {
  assert.equal(formatBytes(512), "512 bytes");
  assert.equal(formatBytes(12_345), "12.3 kB");
  assert.equal(formatBytes(52_000_000), "52.0 MB");
  const now = 1_000_000_000_000;
  assert.equal(lastUse(now - 5_000, now), "just now");
  assert.equal(lastUse(now - 5 * 60_000, now), "5 min ago");
  assert.equal(lastUse(now - 3 * 3_600_000, now), "3 h ago");
});

const { restartedNote, restoredNote } = await import("../../web/src/app/notes.js");

test("a worker lost while idle is told with what its last save gave back", () => {
  const note = restartedNote({
    reason: "the Python runtime failed: boom",
    stateRestored: {
      savedAt: 1,
      restored: ["df", "x"],
      notRestored: [{ name: "gen", reason: "a generator" }],
      whileIdle: true,
      reason: "the Python runtime failed: boom",
    },
  });
  assert.match(note, /stopped \(the Python runtime failed: boom\) .* last save: variables df, x/);
  assert.match(note, /Not restored \(run their code again\): gen: a generator\./);
  const unsaved = restartedNote({ reason: "the sandbox worker crashed", stateRestored: null });
  assert.match(unsaved, /variables are gone, files kept/);
});

test("a reload's note names what came back and what to compute again", () => {
  const note = restoredNote({ files: ["a.txt"], restored: ["x"], notRestored: [], runs: 1 });
  assert.equal(note, "Restored from this browser: 1 variable (x) and 1 file.");
});
