// Exposes the SDK to the tests, plus small helpers that keep results JSON-friendly.
import { Sandbox } from "/sdk/wasmbox.js";

const streams = { stdout: [], stderr: [] };

window.wasmbox = {
  Sandbox,
  streams,
  isolated: crossOriginIsolated,
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
