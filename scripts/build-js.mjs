// Bundle the browser side: the SDK (ES module, /sdk/wasmbox.js) and the sandbox frame with its
// worker (classic scripts). The frame's script goes into the SDK itself, with its CSP hash: the
// SDK writes the frame's document around it (wasm_runtime/sdk/frame-doc.ts).
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const runtime = join(root, "wasm_runtime");
const out = join(root, "build", "js");
const common = { bundle: true, target: "es2022", sourcemap: true, legalComments: "none", logLevel: "warning" };

// Only our outputs: build/js/app belongs to the web app build.
await Promise.all(["sdk", "sandbox"].map((d) => rm(join(out, d), { recursive: true, force: true })));
await mkdir(join(out, "sandbox"), { recursive: true });
await mkdir(join(out, "sdk", "local-model"), { recursive: true });
const wllama = join(root, "node_modules", "@wllama", "wllama", "esm");

const frame = await build({
  ...common,
  sourcemap: false, // inlined into a srcdoc, where a map's relative URL means nothing
  minify: true,
  entryPoints: [join(runtime, "sandbox", "frame.ts")],
  format: "iife",
  write: false,
});
const frameScript = frame.outputFiles[0].text.trim();
const frameHash = createHash("sha256").update(frameScript, "utf8").digest("base64");

await Promise.all([
  build({
    ...common,
    entryPoints: [join(runtime, "sdk", "index.ts")],
    format: "esm",
    outfile: join(out, "sdk", "wasmbox.js"),
    define: {
      __WASMBOX_FRAME_SCRIPT__: JSON.stringify(frameScript),
      __WASMBOX_FRAME_SHA256__: JSON.stringify(frameHash),
    },
  }),
  writeFile(join(out, "sandbox", "frame.js"), frameScript),
  build({
    ...common,
    entryPoints: [join(runtime, "sandbox", "worker.ts")],
    format: "iife",
    outfile: join(out, "sandbox", "worker.js"),
  }),
  copyFile(join(runtime, "sandbox", "frame.html"), join(out, "sandbox", "frame.html")),
  // The in-page model engine (llama.cpp in WebAssembly), loaded by localModel() only when a page
  // uses it, from next to the SDK: never from a CDN.
  build({
    ...common,
    minify: true,
    entryPoints: [join(wllama, "index.js")],
    format: "esm",
    outfile: join(out, "sdk", "local-model", "wllama.js"),
  }),
  copyFile(join(wllama, "wasm", "wllama.wasm"), join(out, "sdk", "local-model", "wllama.wasm")),
]);
