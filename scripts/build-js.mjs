// Bundle the browser side: the SDK (ES module, /sdk/wasmbox.js) and the sandbox frame with its
// worker (classic scripts: the worker starts from a blob: URL that calls importScripts).
import { build } from "esbuild";
import { copyFile, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const runtime = join(root, "wasm_runtime");
const out = join(root, "build", "js");
const common = { bundle: true, target: "es2022", sourcemap: true, legalComments: "none", logLevel: "warning" };

// Only our outputs: build/js/app belongs to the web app build.
await Promise.all(["sdk", "sandbox"].map((d) => rm(join(out, d), { recursive: true, force: true })));
await mkdir(join(out, "sandbox"), { recursive: true });
await Promise.all([
  build({ ...common, entryPoints: [join(runtime, "sdk", "index.ts")], format: "esm", outfile: join(out, "sdk", "wasmbox.js") }),
  build({ ...common, entryPoints: [join(runtime, "sandbox", "frame.ts")], format: "iife", outfile: join(out, "sandbox", "frame.js") }),
  build({ ...common, entryPoints: [join(runtime, "sandbox", "worker.ts")], format: "iife", outfile: join(out, "sandbox", "worker.js") }),
  copyFile(join(runtime, "sandbox", "frame.html"), join(out, "sandbox", "frame.html")),
]);
