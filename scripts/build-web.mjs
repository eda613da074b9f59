// Bundle the web app into build/js/app/app.js and the embed into build/js/embed/embed.js. The SDK
// stays external: both import the same sdk/wasmbox.js that any other page would, so they exercise
// the public SDK. Relative, so they work at a host's root or under a sub-path (`wasmbox export`
// puts the embed at DIR/embed.js, next to DIR/sdk/; `wasmbox serve` at /embed.js).
import { build } from "esbuild";
import { cp, readdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "build", "js");

const sdkAt = (path) => ({
  name: "sdk-is-external",
  setup(b) {
    b.onResolve({ filter: /^wasmbox$/ }, () => ({ path, external: true }));
  },
});
const common = {
  bundle: true,
  format: "esm",
  target: "es2022",
  sourcemap: true,
  minify: true,
  legalComments: "none",
  logLevel: "warning",
};

await Promise.all(["app", "embed", "sw", "pyscript"].map((d) => rm(join(out, d), { recursive: true, force: true })));
await Promise.all([
  build({
    ...common,
    entryPoints: [join(root, "web", "src", "main.ts")],
    outfile: join(out, "app", "app.js"),
    plugins: [sdkAt("../sdk/wasmbox.js")],
  }),
  build({
    ...common,
    entryPoints: [join(root, "web", "src", "embed", "embed.ts")],
    outfile: join(out, "embed", "embed.js"),
    plugins: [sdkAt("./sdk/wasmbox.js")],
  }),
  // backend/offline.py writes the precache list and cache name into its placeholders.
  build({
    ...common,
    sourcemap: false,
    format: "iife",
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    entryPoints: [join(root, "web", "src", "sw", "sw.ts")],
    outfile: join(out, "sw", "sw.js"),
  }),
]);

// @pyscript/core as npm ships it (its own build), for the PyScript example: served from the
// export, never from a CDN. Its interpreter is wasmbox's runtime (web/examples/pyscript.html).
const pyscript = join(root, "node_modules", "@pyscript", "core", "dist");
for (const name of await readdir(pyscript)) {
  if (/\.(js|css)$/.test(name)) await cp(join(pyscript, name), join(out, "pyscript", name));
}
