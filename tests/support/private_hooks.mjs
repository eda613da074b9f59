// Boots the npm package's Pyodide in Node and reports the private hooks wasmbox relies on
// (wasm_runtime/sandbox/pyodide-private.ts, wasmbox_kernel/_patches/), as JSON on stdout.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadPyodide } from "pyodide";
// Run with `node --import tsx`: the memory guard is the worker's own module.
import { guardMemory } from "../../wasm_runtime/sandbox/memory-budget.ts";
import { countFileChanges } from "../../wasm_runtime/sandbox/file-changes.ts";
import { scanFiles } from "../../wasm_runtime/sandbox/file-scan.ts";
import { shortcutPathLookups } from "../../wasm_runtime/sandbox/fs-paths.ts";

const require = createRequire(import.meta.url);
const pyodide = await loadPyodide();
const module = pyodide._module;
const asm = readFileSync(require.resolve("pyodide/pyodide.asm.js"), "utf8");
const python = pyodide.runPython(`
import inspect, json, zipimport
from pyodide import _package_loader as loader
json.dumps({
    "zipDirectoryCache": isinstance(getattr(zipimport, "_zip_directory_cache", None), dict),
    "zipimporterFiles": "_files" in zipimport.zipimporter.__init__.__code__.co_names,
    "invalidateCaches": callable(getattr(zipimport.zipimporter, "invalidate_caches", None)),
    "unpackBufferParameters": list(inspect.signature(loader.unpack_buffer).parameters),
    "loaderHelpers": sorted(n for n in ("set_wheel_installer", "install_datafiles", "should_load_dynlib", "to_js") if callable(getattr(loader, n, None))),
})
`);
console.log(
  JSON.stringify({
    version: pyodide.version,
    module: ["HEAP8", "HEAPU32", "stackSave", "stackAlloc", "stackRestore", "_mallinfo", "_malloc_footprint"].filter(
      (n) => n in module,
    ),
    api: typeof pyodide._api === "object",
    onFatalCalled: /API\.on_fatal&&API\.on_fatal\(/.test(asm),
    loadSnapshotOption:
      asm.includes("_loadSnapshot") ||
      readFileSync(require.resolve("pyodide/pyodide.mjs"), "utf8").includes("_loadSnapshot"),
    python: JSON.parse(python),
    // The package snapshot's linker (sandbox/side-modules.ts, package-snapshot.ts).
    linker: [
      "LDSO",
      "GOT",
      "wasmTable",
      "wasmTableMirror",
      "freeTableIndexes",
      "newDSO",
      "loadWebAssemblyModule",
      "mergeLibSymbols",
      "reportUndefinedSymbols",
      "setWasmTableEntry",
      "updateTableMap",
      "_emscripten_builtin_malloc",
      "__PyRuntime",
      "__PyEM_EMSCRIPTEN_COUNT_ARGS_OFFSET",
      "__hiwire_set",
    ].filter((n) => module[n] !== undefined),
    createModuleGlobal: typeof globalThis._createPyodideModule === "function",
    restoreSnapshot: typeof pyodide._api.restoreSnapshot === "function",
    loadedPackagesSlot: module.__hiwire_get(6) === pyodide.loadedPackages,
    // A file placed straight into a MEMFS directory reads back through the FS (placeFile).
    memfsPlacedFile: placedFileReadsBack(),
    // Which file operations move the count of changes (sandbox/file-changes.ts).
    fileChanges: fileChangesCounted(),
    // The worker's walk of the files (sandbox/file-scan.ts) against the kernel's own scan.
    fileScan: fileScansAgree(),
    // A dlopen handle whose flag at +8 is set gives its bases at +12 (memory) and +20 (table).
    placedHandle:
      asm.includes("else{memoryBase=HEAPU32[handle+12>>>2>>>0];tableBase=HEAPU32[handle+20>>>2>>>0]}") &&
      asm.includes("var firstLoad=!handle||!HEAP8[handle+8>>>0]"),
    // The path lookups' shortcut (sandbox/fs-paths.ts) against Emscripten's own lookups; it stays on.
    pathLookups: pathLookupsAgree(),
    // Last: it changes WebAssembly.Memory for the rest of this process.
    memoryGuard: budgetHolds(),
  }),
);

/** The worker's guard (sandbox/memory-budget.ts) turns growth past the budget into MemoryError. */
function budgetHolds() {
  const budget = guardMemory(pyodide);
  if (!budget) return { guarded: false };
  pyodide.runPython("kept = 42");
  const before = module.HEAP8.length;
  budget.set(before + 50 * 1024 * 1024);
  budget.beginRun();
  let raised = "";
  try {
    pyodide.runPython("big = bytearray(200 * 1024 * 1024)");
  } catch (error) {
    raised = String(error).trim().split("\n").at(-1);
  }
  const result = { outcome: "OUTCOME_OK", error: null };
  budget.endRun(result);
  return {
    guarded: true,
    raised,
    grewPastBudget: module.HEAP8.length > before + 50 * 1024 * 1024,
    kept: pyodide.runPython("kept"),
    outcome: result.outcome,
    // Within the budget it still grows.
    grewWithin: (pyodide.runPython("small = bytearray(40 * 1024 * 1024)"), module.HEAP8.length > before),
  };
}

function fileChangesCounted() {
  const changes = countFileChanges(pyodide);
  if (!changes) return null;
  pyodide.runPython(`
import os
os.makedirs("/tmp/changes/old", exist_ok=True)
with open("/tmp/changes/kept.txt", "w") as f:
    f.write("kept")
held = open("/tmp/changes/held.txt", "w")
`);
  // Each as a cell of its own would do it; reads come first and last.
  const operations = {
    "read a file": "open('/tmp/changes/kept.txt').read()",
    "list and stat": "os.listdir('/tmp/changes'); os.stat('/tmp/changes/kept.txt')",
    "create a file": "open('/tmp/changes/new.txt', 'x').close()",
    "write to a file opened earlier": "held.write('x'); held.flush()",
    truncate: "os.truncate('/tmp/changes/kept.txt', 1)",
    "set the times": "os.utime('/tmp/changes/kept.txt', (1, 1))",
    "make a directory": "os.mkdir('/tmp/changes/dir')",
    rename: "os.rename('/tmp/changes/new.txt', '/tmp/changes/renamed.txt')",
    link: "os.symlink('/tmp/changes/kept.txt', '/tmp/changes/link')",
    "delete a file": "os.remove('/tmp/changes/renamed.txt')",
    "remove a directory": "os.rmdir('/tmp/changes/old')",
    "write through mmap": `
import mmap
with open('/tmp/changes/kept.txt', 'r+b') as f, mmap.mmap(f.fileno(), 1) as m:
    m[0:1] = b'K'
    m.flush()`,
    "write with FS.writeFile": null,
    "read again": "open('/tmp/changes/kept.txt', 'rb').read()",
  };
  const moved = {};
  for (const [name, code] of Object.entries(operations)) {
    const before = changes();
    if (code === null) pyodide.FS.writeFile("/tmp/changes/host.txt", "from the host");
    else pyodide.runPython(code);
    moved[name] = changes() > before;
  }
  return moved;
}

function fileScansAgree() {
  const source = new URL("../../wasm_runtime", import.meta.url).pathname;
  pyodide.FS.mkdirTree("/src/wasm_runtime");
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: source }, "/src/wasm_runtime");
  pyodide.runPython(`
import os, sys
sys.path.insert(0, "/src/wasm_runtime/kernel")
root = "/tmp/scanned"
for d in ("a/b/c", "a.d", ".hidden", "empty", "z" + "/y" * 17):
    os.makedirs(os.path.join(root, d), exist_ok=True)
for name in ("a/b/c/deep.csv", "a.txt", "a.d/x", ".hidden/.dot", "B", "é", "\\uffff", "\\U0001f600",
             "z" + "/y" * 16 + "/in.txt", "z" + "/y" * 17 + "/too-deep.txt"):
    with open(os.path.join(root, name), "w") as f:
        f.write(name)
os.symlink(os.path.join(root, "a.txt"), os.path.join(root, "link"))
os.symlink(os.path.join(root, "a"), os.path.join(root, "dirlink"))
`);
  const python = pyodide.runPython(`
from wasmbox_kernel.fsscan import scan
import json
json.dumps([[path, size] for path, (size, _) in scan(root).items()])
`);
  const mine = pyodide.globals.get("__import__")("wasmbox_kernel.fsscan").fsscan;
  const text = scanFiles(pyodide.FS, "/tmp/scanned");
  const unpacked = mine.unpack(text).toJs({ dict_converter: (entries) => entries });
  mine.destroy();
  pyodide.FS.unmount("/src/wasm_runtime");
  // In the order each found them: path and size.
  return { kernel: JSON.parse(python), worker: [...unpacked].map(([path, [size]]) => [path, size]) };
}

function placedFileReadsBack() {
  const { FS } = pyodide;
  FS.mkdirTree("/tmp/placed");
  const directory = FS.lookupPath("/tmp/placed").node;
  const node = directory.node_ops.mknod(directory, "file.txt", 0o100666, 0);
  node.contents = new TextEncoder().encode("placed");
  node.usedBytes = node.contents.length;
  return (
    pyodide.runPython("open('/tmp/placed/file.txt').read()") === "placed" &&
    Object.hasOwn(directory.contents, "file.txt")
  );
}

/** Every lookup and normalisation the same before and after the shortcut, on paths of every kind. */
function pathLookupsAgree() {
  const { FS } = pyodide;
  const { PATH } = module;
  FS.mkdirTree("/tmp/paths/a/b");
  FS.writeFile("/tmp/paths/a/b/f.txt", "x");
  FS.symlink("/tmp/paths/a", "/tmp/paths/link");
  FS.symlink("b/f.txt", "/tmp/paths/a/rel");
  FS.symlink("/tmp/paths/missing", "/tmp/paths/dangling");
  FS.mkdirTree("/tmp/paths/mnt");
  FS.mount(FS.filesystems.MEMFS, {}, "/tmp/paths/mnt");
  FS.writeFile("/tmp/paths/mnt/m.txt", "m");
  const cwd = FS.cwd();
  FS.chdir("/tmp/paths/a");
  const paths = [
    "/tmp/paths/a/b/f.txt",
    "b/f.txt",
    "./b/f.txt",
    "b//f.txt",
    "b/../b/f.txt",
    "b/.",
    "/tmp/paths/a/b/",
    "/",
    "",
    ".",
    "..",
    "/tmp/paths/link/b/f.txt",
    "/tmp/paths/link",
    "rel",
    "/tmp/paths/dangling",
    "/tmp/paths/mnt",
    "/tmp/paths/mnt/m.txt",
    "missing",
    "b/f.txt/x",
    "b/new.txt",
    ".hidden",
    "b/..x",
  ];
  const options = [
    undefined,
    {},
    { follow: true },
    { parent: true },
    { follow_mount: false },
    { follow_mount: undefined },
  ];
  const outcome = (lookup) => {
    try {
      const { path, node } = lookup();
      return { path, node: node ? `${FS.getPath(node)}#${node.id}` : null };
    } catch (error) {
      return { errno: error.errno ?? String(error) };
    }
  };
  const results = () => ({
    lookups: paths.flatMap((path) => options.map((o) => outcome(() => FS.lookupPath(path, o)))),
    normalized: [...paths, "a/", "a/./b", "../x", "a/..", "//a"].map((path) => PATH.normalize(path)),
  });
  const before = results();
  const original = FS.lookupPath;
  const installed = shortcutPathLookups(pyodide);
  const after = results();
  const opened = pyodide.runPython("open('b/g.txt', 'w').write('y')\nopen('/tmp/paths/a/b/g.txt').read()");
  FS.chdir(cwd);
  return {
    installed: installed && FS.lookupPath !== original,
    same: JSON.stringify(before) === JSON.stringify(after),
    compared: before.lookups.length,
    opened,
  };
}
