// Boot from the package snapshot (builder/package_snapshot.py): the start-up snapshot's state
// with numpy, pandas and cloudpickle already imported, so a resumed session's variables need no
// package install or import. Its side modules are compiled from the wheels while the snapshot
// arrives, linked as Pyodide writes the heap (side-modules.ts), and the wheels' files written
// back to the file system, which no memory snapshot holds.
import type { PyodideInterface } from "pyodide";
import { unzipSync } from "fflate";
import { bootStep } from "./boot-steps.js";
import { parsePackageRecord, type PackageRecord } from "./package-record.js";
import { linkerModule, withModuleHook } from "./pyodide-private.js";
import type { RuntimeFileBytes } from "./runtime-fetch.js";
import { linkSideModules } from "./side-modules.js";

declare const loadPyodide: typeof import("pyodide").loadPyodide;

const SITE_PACKAGES = "/lib/python3.12/site-packages/";
/** Where Pyodide's reference table keeps pyodide_js.loadedPackages (emptied for the snapshot). */
const LOADED_PACKAGES_SLOT = 6;

/** The manifest's entry for the package snapshot. */
export interface PackageSnapshotFiles {
  file: string;
  record: string;
  packages: string[];
}

type LoadOptions = Parameters<typeof loadPyodide>[0];

/** Every file of the record's wheels, by the path the installer put it at. */
async function wheelFiles(record: PackageRecord, fileBytes: RuntimeFileBytes): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const wheels = await Promise.all(record.wheels.map(fileBytes));
  for (const wheel of wheels)
    for (const [member, data] of Object.entries(unzipSync(wheel)))
      if (!member.endsWith("/")) files.set(SITE_PACKAGES + member, data);
  return files;
}

async function compileLibraries(
  record: PackageRecord,
  files: Map<string, Uint8Array>,
): Promise<Map<string, WebAssembly.Module>> {
  const modules = await Promise.all(
    record.libs.map((lib) => {
      const bytes = files.get(lib.name);
      if (!bytes) throw new Error(`${lib.name} is in none of the wheels`);
      return WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
    }),
  );
  return new Map(record.libs.map((lib, i) => [lib.name, modules[i]!]));
}

/** The heap part of a Pyodide memory snapshot (its header says where it starts). */
function heapOf(snapshot: Uint8Array): Uint8Array {
  const header = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 2);
  return snapshot.subarray(header[1]);
}

/** The files the install left, as they were: the record's directories, the wheels, the rest inline. */
function installFiles(pyodide: PyodideInterface, record: PackageRecord, files: Map<string, Uint8Array>): void {
  const { FS } = pyodide;
  for (const dir of record.fs.dirs) FS.mkdirTree(dir);
  for (const [path, data] of files) FS.writeFile(path, data, { canOwn: true });
  for (const [path, base64] of record.fs.inline)
    FS.writeFile(
      path,
      Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)),
    );
}

/**
 * A Pyodide booted from the package snapshot, its packages known to loadPackage and their files in
 * place. `boot` runs loadPyodide with the options given (the caller adds its own wrapping).
 */
export async function bootFromPackageSnapshot(
  files: PackageSnapshotFiles,
  fileBytes: RuntimeFileBytes,
  options: LoadOptions,
  boot: (load: () => Promise<PyodideInterface>) => Promise<PyodideInterface>,
): Promise<PyodideInterface> {
  // Each step's end is a boot step (performance marks on the host: where a resume's boot goes).
  const step =
    <T>(name: string) =>
    (value: T) => (bootStep(name), value);
  const record = fileBytes(files.record).then(parsePackageRecord);
  const snapshot = fileBytes(files.file).then(step("package-snapshot-received"));
  const wheels = record.then((r) => wheelFiles(r, fileBytes)).then(step("package-wheels-unzipped"));
  const modules = Promise.all([record, wheels])
    .then(([r, w]) => compileLibraries(r, w))
    .then(step("package-modules-compiled"));
  for (const pending of [snapshot, wheels, modules]) pending.catch(() => undefined); // awaited below
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
  installFiles(pyodide, rec, await wheels);
  bootStep("package-files-written");
  return pyodide;
}
