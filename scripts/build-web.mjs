// Bundle the web app into build/js/app/app.js and the embed into build/js/embed/embed.js. The SDK
// stays external: both import the same sdk/wasmbox.js that any other page would, so they exercise
// the public SDK. Relative, so they work at a host's root or under a sub-path (`wasmbox export`
// puts the embed at DIR/embed.js, next to DIR/sdk/; `wasmbox serve` at /embed.js).
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
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

await Promise.all(
  ["app", "embed", "sw", "pyscript", "charts"].map((d) => rm(join(out, d), { recursive: true, force: true })),
);

// plotly.js's dist is a UMD call whose factory, an arrow function passed as an argument, holds the
// whole library: V8 preparses such a function lazily and parses it again when it is called, and
// bundled it sat in one more lazy wrapper (esbuild's CommonJS shim), so the library's megabytes
// were parsed several times in every new chart frame. Called at once inside parentheses, it is
// compiled eagerly in one pass; it sets `window.Plotly`, which the frame's script then reads.
const PLOTLY_DIST = join(root, "node_modules", "plotly.js-strict-dist-min", "plotly-strict.min.js");
const UMD_FACTORY = '() => {\n"use strict";var Plotly=';
async function eagerPlotly() {
  const dist = await readFile(PLOTLY_DIST, "utf8");
  const start = dist.indexOf(UMD_FACTORY);
  const end = dist.lastIndexOf("}));");
  if (start < 0 || end < start || !dist.includes("window.Plotly = Plotly;")) {
    throw new Error(`${PLOTLY_DIST} is not the UMD shape scripts/build-web.mjs unwraps: look again`);
  }
  return `(() => {\n${dist.slice(start + "() => {\n".length, end)}})();`;
}
const plotlyGlobal = {
  name: "plotly-is-global",
  setup(b) {
    b.onResolve({ filter: /^plotly\.js-strict-dist-min$/ }, () => ({ path: "plotly", namespace: "global" }));
    b.onLoad({ filter: /.*/, namespace: "global" }, () => ({ contents: "export default window.Plotly;" }));
  },
};

// The chart frames' scripts (web/src/charts/), loaded only when a chart appears and inlined into
// the frame's document by hash (web/src/ui/chart-view.ts). Named by content, so caches keep them
// for good; charts.json lists them for the server's and the export's page policy. "plotly" is
// bundled from plotly.js's modules (the trace types most figures use), "plotly-full" from its
// strict dist.
async function chartBundle(name) {
  const full = name === "plotly-full";
  const made = await build({
    ...common,
    sourcemap: false, // inlined into a srcdoc, where a map's relative URL means nothing
    format: "iife",
    // plotly.js's modules as its own build takes them: `global` is the window, and its WebGL
    // code shares one regl, plotly's. Its one stylesheet import is maplibre's, for map traces,
    // which the plotly bundle does not hold.
    define: { "process.env.NODE_ENV": JSON.stringify("production"), global: "window", "define.amd": "false" },
    alias: { regl: "@plotly/regl" },
    loader: { ".css": "empty" },
    entryPoints: [join(root, "web", "src", "charts", `${name}-frame.ts`)],
    plugins: full ? [plotlyGlobal] : [],
    write: false,
  });
  const frame = made.outputFiles[0].text.trim();
  const text = full ? `${await eagerPlotly()}\n${frame}` : frame;
  if (/<\/script|<!--/i.test(text)) throw new Error(`the ${name} chart bundle cannot be inlined`);
  const digest = createHash("sha256").update(text, "utf8");
  const sha256 = digest.copy().digest("base64");
  const file = `${name}-${digest.digest("hex").slice(0, 12)}.js`;
  // Served pre-compressed by `wasmbox serve` (backend/static.py), as the runtime's files are.
  const bytes = Buffer.from(text, "utf8");
  const brotli = { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } };
  await Promise.all([
    writeFile(join(out, "charts", file), bytes),
    writeFile(join(out, "charts", `${file}.br`), brotliCompressSync(bytes, brotli)),
    writeFile(join(out, "charts", `${file}.gz`), gzipSync(bytes, { level: 9 })),
  ]);
  return [name, { file, sha256, bytes: Buffer.byteLength(text) }];
}
await mkdir(join(out, "charts"), { recursive: true });
const charts = Object.fromEntries(await Promise.all(["plotly", "plotly-full", "vega"].map(chartBundle)));
await writeFile(join(out, "charts", "charts.json"), JSON.stringify(charts, null, 1) + "\n");
const chartsAt = (base) => ({
  __WASMBOX_CHARTS__: JSON.stringify(charts),
  __WASMBOX_CHARTS_BASE__: JSON.stringify(base),
});

await Promise.all([
  build({
    ...common,
    entryPoints: [join(root, "web", "src", "main.ts")],
    outfile: join(out, "app", "app.js"),
    plugins: [sdkAt("../sdk/wasmbox.js")],
    define: chartsAt("../charts/"),
  }),
  build({
    ...common,
    entryPoints: [join(root, "web", "src", "embed", "embed.ts")],
    outfile: join(out, "embed", "embed.js"),
    plugins: [sdkAt("./sdk/wasmbox.js")],
    define: chartsAt("./charts/"),
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
