// Re-link a package snapshot's side modules (the packages' .so files) into a module whose heap
// the snapshot has just been written to, before any Python runs. A memory snapshot holds the
// heap only; the side modules' code lives in WebAssembly instances and their functions in the
// shared table. Instantiating each again, in the recorded order, at its recorded memory and table
// bases, rebuilds the table and the global offset table exactly as they were (checked below);
// then the heap is written again, since the modules' start-up wrote into their data.
// Any difference throws: the caller boots without the package snapshot.
import { gotDigest } from "../protocol/got-digest.mjs";
import type { PackageRecord } from "../protocol/package-record.js";
import type { LinkerModule, LinkFlags } from "./pyodide-private.js";

/** Bytes of the scratch struct dso a handle points at, and where its "placed" flag and bases are. */
const DSO_SIZE = 64;
const DSO_PLACED = 8;
const DSO_MEMORY_BASE = 12;
const DSO_TABLE_BASE = 20;

/**
 * Link `record.libs` from their compiled `modules` (library name → module), then put `heap` (the
 * snapshot's) back. Throws if the table or the global offset table differs from the record's.
 */
export function linkSideModules(
  M: LinkerModule,
  record: PackageRecord,
  modules: Map<string, WebAssembly.Module>,
  heap: Uint8Array,
): void {
  if (heap.length !== record.heapLength) throw new Error(`heap of ${heap.length} bytes, recorded ${record.heapLength}`);
  const countArgs = countArgsSlot(M, record);
  // The loader takes a dlopen handle whose dso is already "placed" to mean: use its bases.
  const handle = M._emscripten_builtin_malloc(DSO_SIZE);
  const fs = noFileSystem(record);
  record.libs.forEach((lib, i) => {
    const expected = lib.tableBase + (i === 0 && countArgs.moved ? 1 : 0);
    if (M.wasmTable.length !== expected)
      throw new Error(`table length ${M.wasmTable.length} before ${lib.name}, recorded ${expected}`);
    const module = modules.get(lib.name);
    if (!module) throw new Error(`${lib.name} was not compiled`);
    M.HEAPU8.fill(0, handle, handle + DSO_SIZE);
    M.HEAPU8[handle + DSO_PLACED] = 1;
    M.HEAPU32[(handle + DSO_MEMORY_BASE) >> 2] = lib.memoryBase;
    M.HEAPU32[(handle + DSO_TABLE_BASE) >> 2] = lib.tableBase;
    // What loadDynamicLibrary does around loadWebAssemblyModule, for an already compiled module.
    const dso = M.newDSO(lib.name, undefined, "loading");
    dso.refcount = Infinity;
    dso.global = lib.global;
    const flags: LinkFlags = { loadAsync: false, nodelete: true, allowUndefined: true, global: lib.global, fs };
    const localScope = lib.global ? null : {};
    const exports = M.loadWebAssemblyModule(module, flags, lib.name, localScope, handle);
    if (lib.global) M.mergeLibSymbols(exports, lib.name);
    else Object.assign(localScope!, exports);
    dso.exports = exports;
    delete M.LDSO.loadedLibsByHandle[handle];
    for (const alias of lib.aliases) M.LDSO.loadedLibsByName[alias] ??= dso;
  });
  // As loadPackage does once its libraries are in: a function one module imports and a later one
  // defines gets its table slot now (matplotlib's, one slot).
  M.reportUndefinedSymbols();
  if (M.wasmTable.length !== record.table.after)
    throw new Error(`table length ${M.wasmTable.length} after linking, recorded ${record.table.after}`);
  const got = gotDigest(M.GOT);
  if (got.count !== record.got.count || got.fnv1a !== record.got.fnv1a)
    throw new Error(`global offset table differs (${got.count} entries, recorded ${record.got.count})`);
  for (const [address, name] of Object.entries(record.handles)) {
    const dso = M.LDSO.loadedLibsByName[name];
    if (!dso) throw new Error(`dlopen handle ${address}: ${name} is not loaded`);
    M.LDSO.loadedLibsByHandle[address] = dso;
  }
  M.freeTableIndexes.splice(0, M.freeTableIndexes.length, ...record.table.free);
  // The modules' data initialisation, relocations and constructors wrote into the heap (the
  // scratch handle's malloc too): the snapshot's heap is the state to continue from.
  M.HEAP8.set(heap);
  countArgs.finish();
  refreshTableMirror(M);
}

/**
 * CPython's "count args" helper takes a table slot at boot only where the engine has WasmGC type
 * reflection (Chromium yes, Node 20 no), and the snapshot was made in Node. Where this engine made
 * it (at the end of the table, the first side module's first slot), that module takes the slot as
 * in the snapshot, and the helper is put back at the table's end once linking is done.
 */
function countArgsSlot(M: LinkerModule, record: PackageRecord): { moved: boolean; finish(): void } {
  const word = (M.__PyRuntime + M.HEAP32[M.__PyEM_EMSCRIPTEN_COUNT_ARGS_OFFSET >> 2]!) >> 2;
  const made = M._PyEM_CountArgsPtr || 0;
  const { before, countArgs } = record.table;
  const length = M.wasmTable.length;
  const write = (slot: number): void => {
    M.HEAP32[word] = slot;
    M._PyEM_CountArgsPtr = slot;
  };
  if (length === before && made === countArgs) return { moved: false, finish: () => write(countArgs) };
  if (length === before + 1 && countArgs === 0 && made === before) {
    const helper = M.wasmTable.get(made);
    return {
      moved: true,
      finish: () => {
        // Not addFunction: its function → slot map still names the slot the first module took.
        M.wasmTable.grow(1);
        const slot = M.wasmTable.length - 1;
        M.setWasmTableEntry(slot, helper);
        M.updateTableMap(slot, 1);
        write(slot);
      },
    };
  }
  throw new Error(`table of ${length} (count-args slot ${made}) where the snapshot had ${before} (${countArgs})`);
}

/** getWasmTableEntry caches slots; instantiation wrote segments past that cache. */
function refreshTableMirror(M: LinkerModule): void {
  const mirror = M.wasmTableMirror;
  for (let i = 0; i < mirror.length; i++) {
    if (mirror[i] !== undefined && mirror[i] !== M.wasmTable.get(i)) mirror[i] = M.wasmTable.get(i);
  }
}

/** Every library comes compiled; a read of a file would mean a library the record does not name. */
function noFileSystem(record: PackageRecord): LinkFlags["fs"] {
  return {
    findObject: () => null,
    readFile: (path) => {
      throw new Error(`${path} is needed by a side module but is not in the record (${record.libs.length} libraries)`);
    },
  };
}
