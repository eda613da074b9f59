// Every Pyodide internal the worker reaches, in one place. They target Pyodide 0.27.7;
// tests/runtime/test_private_hooks.py boots that Pyodide in Node and checks each still exists.
//   _module   Emscripten's module: the heap views and the C stack, for the memory figures;
//             growMemory and _emscripten_resize_heap, whose growth memory-budget.ts refuses
//   _api      Pyodide's internal API: `on_fatal`, which its fatal_error handler calls
//   _loadSnapshot (a loadPyodide option, see runtime.ts): boot from the build's memory snapshot
import type { PyodideInterface } from "pyodide";

/** The parts of Emscripten's module the worker reads. */
export interface EmscriptenModule {
  HEAP8: Int8Array;
  HEAPU32: Uint32Array;
  stackSave(): number;
  stackAlloc(size: number): number;
  stackRestore(pointer: number): void;
  _mallinfo(result: number): void;
  /** dlmalloc's bytes taken from the system (grows, never shrinks here): constant time. */
  _malloc_footprint(): number;
  growMemory(bytes: number): unknown;
  _emscripten_resize_heap(bytes: number): boolean;
}

/**
 * Whether every growth of the memory goes through `wasmMemory.grow`, called from JS on this
 * thread: Emscripten's sbrk asks `_emscripten_resize_heap`, which asks `growMemory`. Read from
 * their source, since both are closures over the module's private memory object.
 */
export function growsThroughMemoryObject(module: EmscriptenModule): boolean {
  const source = (f: unknown) => (typeof f === "function" ? String(f) : "");
  return (
    source(module._emscripten_resize_heap).includes("growMemory(") &&
    source(module.growMemory).includes("wasmMemory.grow(")
  );
}

/** Pyodide's internal API object; `on_fatal` is called (once) when Pyodide gives up. */
export interface PyodideApi {
  on_fatal?: (error: unknown) => void;
}

export const emscriptenModule = (pyodide: PyodideInterface): EmscriptenModule =>
  (pyodide as unknown as { _module: EmscriptenModule })._module;

export const pyodideApi = (pyodide: PyodideInterface): PyodideApi => (pyodide as unknown as { _api: PyodideApi })._api;

// For the package snapshot (side-modules.ts, package-snapshot.ts), also checked by
// tests/runtime/test_private_hooks.py:
//   _createPyodideModule   the global pyodide.asm.js defines; wrapped to reach API.restoreSnapshot
//   API.restoreSnapshot    writes the snapshot's heap; the side modules are linked right after
//   Emscripten's dynamic linker (LDSO, loadWebAssemblyModule, newDSO, mergeLibSymbols,
//   reportUndefinedSymbols, GOT, the
//   table and its mirror) and Pyodide's reference table (__hiwire_get/__hiwire_set)
//   MEMFS's directory `node_ops.mknod` and a file node's `contents`/`usedBytes` (placeFile)

/** One loaded library as Emscripten's dynamic linker keeps it. */
export interface Dso {
  name: string;
  refcount: number;
  global: boolean;
  exports: Record<string, unknown> | "loading";
}

/** A `fs` for the linker's file reads: the library bytes come from the wheels, not the FS. */
export interface LinkerFs {
  findObject(path: string): object | null;
  readFile(path: string): Uint8Array;
}

export interface LinkFlags {
  loadAsync: false;
  nodelete: true;
  allowUndefined: true;
  global: boolean;
  fs: LinkerFs;
}

/** Emscripten's module as the side-module linker uses it. */
export interface LinkerModule extends EmscriptenModule {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  LDSO: { loadedLibsByName: Record<string, Dso>; loadedLibsByHandle: Record<string, Dso> };
  GOT: Record<string, WebAssembly.Global>;
  wasmTable: WebAssembly.Table;
  wasmTableMirror: unknown[];
  freeTableIndexes: number[];
  newDSO(name: string, handle: number | undefined, exports: "loading"): Dso;
  loadWebAssemblyModule(
    module: WebAssembly.Module,
    flags: LinkFlags,
    libName: string,
    localScope: Record<string, unknown> | null,
    handle: number,
  ): Record<string, unknown>;
  mergeLibSymbols(exports: Record<string, unknown>, libName: string): void;
  reportUndefinedSymbols(): void;
  setWasmTableEntry(index: number, fn: unknown): void;
  updateTableMap(offset: number, count: number): void;
  _emscripten_builtin_malloc(size: number): number;
  __PyRuntime: number;
  __PyEM_EMSCRIPTEN_COUNT_ARGS_OFFSET: number;
  _PyEM_CountArgsPtr: number;
  __hiwire_set(index: number, value: unknown): number;
  FS: PyodideInterface["FS"];
}

/** Pyodide's internal API while its module is created: where a snapshot's heap is written. */
export interface SnapshotApi {
  restoreSnapshot(bytes: Uint8Array): unknown;
}

type CreateModule = (config: { API: SnapshotApi }) => Promise<LinkerModule>;
const scope = globalThis as unknown as { _createPyodideModule?: CreateModule };

/**
 * Run `boot` (a loadPyodide) with `hook` called on Pyodide's module and API as soon as the module
 * exists, before Pyodide restores a snapshot into it. The worker's script holds pyodide.asm.js,
 * whose global `_createPyodideModule` loadPyodide calls.
 */
export async function withModuleHook<T>(
  hook: (module: LinkerModule, api: SnapshotApi) => Promise<void>,
  boot: () => Promise<T>,
): Promise<T> {
  const create = scope._createPyodideModule;
  if (typeof create !== "function") throw new Error("Pyodide's module factory is not loaded");
  scope._createPyodideModule = async (config) => {
    const module = await create(config);
    await hook(module, config.API);
    return module;
  };
  try {
    return await boot();
  } finally {
    scope._createPyodideModule = create;
  }
}

export const linkerModule = (pyodide: PyodideInterface): LinkerModule =>
  (pyodide as unknown as { _module: LinkerModule })._module;

/** A regular file as FS.writeFile makes it (mode 0o666). */
const FILE_MODE = 0o100666;

interface MemfsNode {
  node_ops: { mknod(parent: MemfsNode, name: string, mode: number, dev: number): MemfsNode };
  /** A file's bytes; a directory's entries by name. */
  contents: Uint8Array | Record<string, MemfsNode> | null;
  usedBytes: number;
}

/**
 * A directory's node, to place many files in it with `placeFile`: FS.writeFile's open, write and
 * close, each walking the path again, took several times as long for the files of a package boot.
 */
export const directoryNode = (FS: PyodideInterface["FS"], path: string): MemfsNode =>
  (FS.lookupPath(path) as unknown as { node: MemfsNode }).node;

/** A new file in a MEMFS directory whose contents are `data` itself (owned, not copied). */
export function placeFile(directory: MemfsNode, name: string, data: Uint8Array): void {
  const entries = directory.contents as Record<string, MemfsNode>;
  if (Object.hasOwn(entries, name)) throw new Error(`${name} is already in its directory`);
  const node = directory.node_ops.mknod(directory, name, FILE_MODE, 0);
  node.contents = data;
  node.usedBytes = data.length;
}

// For the count of file changes (file-changes.ts), also checked by tests/runtime/test_private_hooks.py:
//   FS.filesystems.MEMFS.ops_table   the operation tables every MEMFS node and open stream share

type Operation = (...args: unknown[]) => unknown;

/** One kind of MEMFS node's operations (a directory's, a file's, a link's): on the node, on its streams. */
export interface MemfsOperations {
  node?: Record<string, Operation | undefined>;
  stream?: Record<string, Operation | undefined>;
}

/** MEMFS's operation tables, or null where they are not (not made yet, or another Pyodide). */
export function memfsOperations(FS: PyodideInterface["FS"]): MemfsOperations[] | null {
  const memfs = (FS as unknown as { filesystems?: { MEMFS?: { ops_table?: Record<string, MemfsOperations> | null } } })
    .filesystems?.MEMFS;
  const tables = memfs?.ops_table;
  return tables && typeof tables === "object" ? Object.values(tables) : null;
}

// For the worker's walk of the files (file-scan.ts), also checked by tests/runtime/test_private_hooks.py:
//   FS.lookupNode, a node's node_ops.getattr and node_ops.readdir, a mountpoint's `mounted.root`

/** A node of Emscripten's file system, as the walk reads it (any file system: MEMFS, NODEFS). */
export interface FsNode {
  mode: number;
  mounted: { root: FsNode } | null;
  node_ops: {
    getattr?(node: FsNode): { mode: number; size: number; mtime: Date };
    readdir?(node: FsNode): string[];
  };
}

/** The FS calls that go from node to node: FS.stat and FS.readdir walk the whole path each time. */
export interface NodeFs {
  lookupPath(path: string, options: { follow: boolean }): { node: FsNode };
  lookupNode(parent: FsNode, name: string): FsNode;
  isMountpoint(node: FsNode): boolean;
  isDir(mode: number): boolean;
  isFile(mode: number): boolean;
}

export const nodeFs = (FS: PyodideInterface["FS"]): NodeFs => FS as unknown as NodeFs;

// For the path lookups' shortcut (fs-paths.ts), also checked by tests/runtime/test_private_hooks.py:
//   Module.FS.lookupPath, FS.lookupNode, FS.root, FS.cwd, FS.isLink, FS.isMountpoint; Module.PATH.normalize

export interface LookupOptions {
  parent?: boolean;
  follow?: boolean;
  follow_mount?: boolean;
  recurse_count?: number;
}

export interface LookupResult {
  path: string;
  node: FsNode | null;
}

/** Emscripten's FS and PATH objects: their functions reach each other through these objects. */
export interface EmscriptenPaths {
  FS: {
    root: FsNode;
    cwd(): string;
    lookupPath(path: string, options?: LookupOptions): LookupResult;
    lookupNode(parent: FsNode, name: string): FsNode;
    isMountpoint(node: FsNode): boolean;
    isLink(mode: number): boolean;
  };
  PATH: { normalize(path: string): string };
}

export function emscriptenPaths(pyodide: PyodideInterface): EmscriptenPaths | null {
  const module = pyodide as unknown as {
    _module: { FS?: Partial<EmscriptenPaths["FS"]>; PATH?: { normalize?: unknown } };
  };
  const { FS, PATH } = module._module;
  const functions = [FS?.lookupPath, FS?.lookupNode, FS?.cwd, FS?.isMountpoint, FS?.isLink, PATH?.normalize];
  if (!FS?.root || functions.some((f) => typeof f !== "function")) return null;
  return { FS, PATH } as EmscriptenPaths;
}
