// Bundle the web app into build/js/app/app.js. The SDK stays external: the app imports the same
// /sdk/wasmbox.js that any other page would, so the app exercises the public SDK.
import { build } from "esbuild";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "build", "js", "app");

const sdkIsExternal = {
  name: "sdk-is-external",
  setup(b) {
    b.onResolve({ filter: /^wasmbox$/ }, () => ({ path: "/sdk/wasmbox.js", external: true }));
  },
};

await rm(out, { recursive: true, force: true });
await build({
  entryPoints: [join(root, "web", "src", "main.ts")],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "esm",
  target: "es2022",
  sourcemap: true,
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  plugins: [sdkIsExternal],
});
