// The package snapshot: the base snapshot's state (warm_boot.mjs) plus packages loaded and
// imported, and the link record a worker needs to restore it (its schema: protocol/package-record.ts;
// the worker's side: sandbox/side-modules.ts).
// A memory snapshot holds the wasm heap only. The packages' side modules (their .so files) are
// separate WebAssembly instances, and their files live in the JS file system: the record says
// where each module was placed (memory and table bases, in load order), and the files the install
// added are written out, one after another, into a bundle the worker writes back: no wheel is
// unzipped at resume (that took longer than the rest of the boot).
// Usage: node make_package_snapshot.mjs PYODIDE_DIR RUNTIME_DIR KERNEL_WHEEL PACKAGES OUTPUT_BIN OUTPUT_JSON OUTPUT_FILES [warm]
//   PYODIDE_DIR: Pyodide's core files, as for the base snapshot
//   RUNTIME_DIR: the built runtime (the shipped wheels and their lock)
//   PACKAGES: comma-separated package names, each loaded then its modules imported
//   warm: as a booted spare's preload does (sandbox/runtime.ts: initRuntime, preloadPackages): the
//     kernel's prepare_interpreter first (matplotlib's backend, the installer's patches), then each
//     package's import steps, and its first use paid (plotting.warm_package: matplotlib draws and
//     closes one figure)
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gotDigest } from "../protocol/got-digest.mjs";
import { bootWarm } from "./warm_boot.mjs";

// Made by the worker itself or per process, never by a package install.
const NOT_RESTORED = ["/dev", "/proc", "/tmp", "/home/pyodide"];

const [pyodideDir, runtimeDir, kernelWheel, packageList, outBin, outJson, outFiles, mode] = process.argv.slice(2);
if (!pyodideDir || !runtimeDir || !kernelWheel || !packageList || !outBin || !outJson || !outFiles) {
  console.error(
    "usage: node make_package_snapshot.mjs PYODIDE_DIR RUNTIME_DIR KERNEL_WHEEL PACKAGES OUTPUT_BIN OUTPUT_JSON OUTPUT_FILES [warm]",
  );
  process.exit(2);
}
const packages = packageList.split(",");
const warm = mode === "warm";
const lock = JSON.parse(readFileSync(join(runtimeDir, "pyodide-lock.json"), "utf8"));
const { pyodide, missing } = await bootWarm(pyodideDir, kernelWheel, runtimeDir);
if (missing.length) console.error(`snapshot warm-up: not in this Pyodide: ${missing.join(", ")}`);
const M = pyodide._module;

/** Every directory and file outside NOT_RESTORED: path -> "dir" or the file's size. */
function walk(dir = "/", found = new Map()) {
  for (const name of M.FS.readdir(dir)) {
    if (name === "." || name === "..") continue;
    const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
    if (NOT_RESTORED.includes(path)) continue;
    const stat = M.FS.lstat(path);
    if (M.FS.isDir(stat.mode)) {
      found.set(path, "dir");
      walk(path, found);
    } else if (M.FS.isFile(stat.mode)) found.set(path, stat.size);
  }
  return found;
}

const fsBefore = walk();
const tableBefore = M.wasmTable.length;

// Each side module's instantiation, in order, with the bases the loader gave it (read from the
// import object: the loader passes them as env.__memory_base / env.__table_base).
const instances = [];
const note = (instance, imports) => {
  if (imports?.["GOT.mem"] && imports.env)
    instances.push({ instance, memoryBase: imports.env.__memory_base, tableBase: imports.env.__table_base });
};
const { instantiate, Instance } = WebAssembly;
WebAssembly.instantiate = async function (source, imports) {
  const result = await instantiate.call(this, source, imports);
  note(result.instance ?? result, imports);
  return result;
};
WebAssembly.Instance = new Proxy(Instance, {
  construct(target, args) {
    const instance = Reflect.construct(target, args);
    note(instance, args[1]);
    return instance;
  },
});
const plotting = warm ? pyodide.pyimport("wasmbox_kernel.plotting") : null;
try {
  if (warm) {
    const interpreter = pyodide.pyimport("wasmbox_kernel.interpreter");
    interpreter.prepare_interpreter();
    interpreter.destroy();
  }
  await pyodide.loadPackage(packages, { messageCallback: () => {} });
  for (const name of packages) {
    const stepList = plotting?.import_steps(name);
    const steps = stepList ? stepList.toJs() : [];
    stepList?.destroy();
    for (const module of [...steps, ...lock.packages[name].imports]) pyodide.pyimport(module).destroy();
    plotting?.warm_package(name);
  }
  plotting?.release_font_files();
} finally {
  plotting?.destroy();
  WebAssembly.instantiate = instantiate;
  WebAssembly.Instance = Instance;
}

// Each instance's DSO, found by one of its exported functions, and every name it is known by
// (the loader registers a library under its absolute path and, for dlopen, its file name).
const byName = M.LDSO.loadedLibsByName;
const libs = instances.map(({ instance, memoryBase, tableBase }, order) => {
  const probe = Object.values(instance.exports).find((v) => typeof v === "function");
  const names = Object.keys(byName).filter((n) => probe && Object.values(byName[n].exports ?? {}).includes(probe));
  const dso = byName[names[0]];
  if (!dso) throw new Error(`side module #${order} has no library entry`);
  const aliases = names.filter((n) => n !== dso.name);
  return { name: dso.name, aliases, global: dso.global, memoryBase, tableBase };
});
const handles = Object.fromEntries(Object.entries(M.LDSO.loadedLibsByHandle).map(([h, dso]) => [h, dso.name]));

// The directories and files the install added, as the file system holds them; the files' bytes go
// into the bundle in this order.
const loadedPackages = { ...pyodide.loadedPackages };
const dirs = [];
const files = [];
const contents = [];
for (const [path, kind] of walk()) {
  if (fsBefore.get(path) === kind) continue;
  if (kind === "dir") {
    dirs.push(path);
    continue;
  }
  const bytes = M.FS.readFile(path);
  files.push([path, bytes.length]);
  contents.push(bytes);
}
const bundle = Buffer.concat(contents);

// The makeMemorySnapshot check refuses JS references held by Python, but one it allows itself:
// hiwire slot 6 is the package manager's loadedPackages (`from pyodide_js import loadedPackages`),
// which it wants empty. Empty for the snapshot; the worker puts the names back.
if (M.__hiwire_get(6) !== pyodide.loadedPackages) throw new Error("hiwire slot 6 is not loadedPackages");
for (const name of Object.keys(loadedPackages)) delete pyodide.loadedPackages[name];
// A file Python holds open would be a dangling descriptor in every worker restored from this.
const open = M.FS.streams.filter((stream) => stream && stream.fd > 2).map((stream) => stream.path);
if (open.length) throw new Error(`files still open: ${open.join(", ")}`);
const snapshot = pyodide.makeMemorySnapshot();

const countArgsWord = (M.__PyRuntime + M.HEAP32[M.__PyEM_EMSCRIPTEN_COUNT_ARGS_OFFSET >> 2]) >> 2;
const record = {
  format: 2,
  packages,
  loadedPackages,
  heapLength: M.HEAP8.length,
  table: {
    before: tableBefore,
    after: M.wasmTable.length,
    free: [...M.freeTableIndexes],
    // CPython's count-args helper: its table slot, 0 where the engine could not make it.
    countArgs: M.HEAP32[countArgsWord],
  },
  libs,
  handles,
  got: gotDigest(M.GOT),
  fs: { dirs, files, bundleLength: bundle.length },
};
writeFileSync(outBin, snapshot);
writeFileSync(outFiles, bundle);
writeFileSync(outJson, JSON.stringify(record));
console.log(
  JSON.stringify({
    bytes: snapshot.length,
    libs: libs.length,
    tableAdded: record.table.after - tableBefore,
    dirs: dirs.length,
    files: files.length,
    bundleBytes: bundle.length,
  }),
);
