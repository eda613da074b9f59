// Boot from the package snapshot (builder/package_snapshot.py): the start-up snapshot's state
// with numpy, pandas and cloudpickle already imported, so a resumed session's variables need no
// package install or import. The files the install added come as one bundle (their bytes one
// after another, the record saying which is which): its side modules are compiled while the
// snapshot arrives, linked as Pyodide writes the heap (side-modules.ts), and every file written
// back to the file system, which no memory snapshot holds.
import type { PyodideInterface } from "pyodide";
import { bootStep } from "./boot-steps.js";
import { parsePackageRecord, type PackageRecord } from "../protocol/package-record.js";
import { directoryNode, linkerModule, placeFile, withModuleHook } from "./pyodide-private.js";
import type { RuntimeFiles } from "./runtime-fetch.js";
import { linkSideModules } from "./side-modules.js";

declare const loadPyodide: typeof import("pyodide").loadPyodide;

/** Where Pyodide's reference table keeps pyodide_js.loadedPackages (emptied for the snapshot). */
const LOADED_PACKAGES_SLOT = 6;

/** The manifest's entry for the package snapshot. */
export interface PackageSnapshotFiles {
  file: string;
  record: string;
  bundle: string;
  packages: string[];
}

type LoadOptions = Parameters<typeof loadPyodide>[0];

/** Every file the install added, by path: views into the bundle, which the record lays out. */
function bundleFiles(record: PackageRecord, bundle: Uint8Array): Map<string, Uint8Array> {
  if (bundle.length !== record.fs.bundleLength)
    throw new Error(`the package files bundle has ${bundle.length} bytes, its record says ${record.fs.bundleLength}`);
  const files = new Map<string, Uint8Array>();
  let offset = 0;
  for (const [path, size] of record.fs.files) {
    files.set(path, bundle.subarray(offset, offset + size));
    offset += size;
  }
  if (offset !== bundle.length) throw new Error("the package files bundle does not match its record");
  return files;
}

/** Each library's place in the bundle: the record lists every file's size in bundle order. */
function libraryRanges(record: PackageRecord): Map<string, [number, number]> {
  const libs = new Set(record.libs.map((lib) => lib.name));
  const ranges = new Map<string, [number, number]>();
  let offset = 0;
  for (const [path, size] of record.fs.files) {
    if (libs.has(path)) ranges.set(path, [offset, offset + size]);
    offset += size;
  }
  return ranges;
}

const WASM_HEADERS = { "Content-Type": "application/wasm" };

/** One library's module, compiled as its part of the bundle is read (when the bundle is a Blob). */
function compileLibrary(bundle: Uint8Array | Blob, [start, end]: [number, number]): Promise<WebAssembly.Module> {
  if (!(bundle instanceof Blob)) return WebAssembly.compile(bundle.subarray(start, end) as Uint8Array<ArrayBuffer>);
  const part = bundle.slice(start, end);
  if (typeof WebAssembly.compileStreaming === "function")
    return WebAssembly.compileStreaming(new Response(part, { headers: WASM_HEADERS }));
  return part.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
}

/**
 * The side modules, compiled straight from the bundle as the host sent it: from a stored Blob,
 * each library's own part is read and compiled at once, without waiting for the whole bundle
 * (Firefox compiles every function before the promise resolves, so the compiles are the long
 * pole of its boot). The largest start first, as they take longest.
 */
async function compileLibraries(
  record: PackageRecord,
  bundle: Uint8Array | Blob,
): Promise<Map<string, WebAssembly.Module>> {
  const length = bundle instanceof Blob ? bundle.size : bundle.length;
  if (length !== record.fs.bundleLength)
    throw new Error(`the package files bundle has ${length} bytes, its record says ${record.fs.bundleLength}`);
  const ranges = libraryRanges(record);
  const size = ([start, end]: [number, number]): number => end - start;
  const order = record.libs.map((lib) => {
    const range = ranges.get(lib.name);
    if (!range) throw new Error(`${lib.name} is not in the package files bundle`);
    return [lib.name, range] as const;
  });
  order.sort((a, b) => size(b[1]) - size(a[1]));
  const modules = await Promise.all(
    order.map(([name, range]) => compileLibrary(bundle, range).then((m) => [name, m] as const)),
  );
  return new Map(modules);
}

/** The heap part of a Pyodide memory snapshot (its header says where it starts). */
function heapOf(snapshot: Uint8Array): Uint8Array {
  const header = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 2);
  return snapshot.subarray(header[1]);
}

/** The directories and files the install left, as they were (each file a view of the bundle). */
function installFiles(pyodide: PyodideInterface, record: PackageRecord, files: Map<string, Uint8Array>): void {
  const { FS } = pyodide;
  for (const dir of record.fs.dirs) FS.mkdirTree(dir);
  const directories = new Map<string, ReturnType<typeof directoryNode>>();
  for (const [path, data] of files) {
    const slash = path.lastIndexOf("/");
    const dir = path.slice(0, slash);
    let directory = directories.get(dir);
    if (!directory) directories.set(dir, (directory = directoryNode(FS, dir)));
    placeFile(directory, path.slice(slash + 1), data);
  }
}

/**
 * A Pyodide booted from the package snapshot, its packages known to loadPackage and their files in
 * place. `boot` runs loadPyodide with the options given (the caller adds its own wrapping).
 */
export async function bootFromPackageSnapshot(
  files: PackageSnapshotFiles,
  fileBytes: RuntimeFiles,
  options: LoadOptions,
  boot: (load: () => Promise<PyodideInterface>) => Promise<PyodideInterface>,
): Promise<PyodideInterface> {
  // Each step's end is a boot step (performance marks on the host: where a resume's boot goes).
  const step =
    <T>(name: string) =>
    (value: T) => (bootStep(name), value);
  const record = fileBytes(files.record).then(parsePackageRecord);
  const snapshot = fileBytes(files.file).then(step("package-snapshot-received"));
  const bundleData = fileBytes.data(files.bundle);
  const bundleBytes = bundleData.then((data) =>
    data instanceof Blob ? data.arrayBuffer().then((b) => new Uint8Array(b)) : data,
  );
  const bundle = Promise.all([record, bundleBytes.then(step("package-files-received"))]).then(([r, b]) =>
    bundleFiles(r, b),
  );
  const modules = Promise.all([record, bundleData])
    .then(([r, b]) => (bootStep("package-modules-compiling"), compileLibraries(r, b)))
    .then(step("package-modules-compiled"));
  for (const pending of [snapshot, bundleBytes, bundle, modules]) pending.catch(() => undefined); // awaited below
  const pyodide = await withModuleHook(
    async (module, api) => {
      const [rec, compiled] = await Promise.all([record, modules]);
      const restore = api.restoreSnapshot.bind(api);
      api.restoreSnapshot = (bytes) => {
        const result = restore(bytes);
        linkSideModules(module, rec, compiled, heapOf(bytes));
        bootStep("package-modules-linked");
        return result;
      };
    },
    () => boot(() => loadPyodide({ ...options, _loadSnapshot: snapshot } as LoadOptions)),
  );
  const rec = await record;
  Object.assign(pyodide.loadedPackages, rec.loadedPackages);
  if (linkerModule(pyodide).__hiwire_set(LOADED_PACKAGES_SLOT, pyodide.loadedPackages) < 0)
    throw new Error("could not give Python back pyodide_js.loadedPackages");
  installFiles(pyodide, rec, await bundle);
  bootStep("package-files-written");
  return pyodide;
}
