// The package snapshot's link record (made by builder/make_package_snapshot.mjs): what a worker
// needs to put the snapshot's side modules and files back. Checked before any of it is used.
import * as v from "valibot";

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const path = v.pipe(v.string(), v.startsWith("/"));

export const PackageRecordSchema = v.object({
  format: v.literal(2),
  packages: v.array(v.string()),
  /** pyodide.loadedPackages as it was: name → channel. */
  loadedPackages: v.record(v.string(), v.string()),
  heapLength: count,
  table: v.object({
    before: count,
    after: count,
    free: v.array(count),
    /** CPython's count-args helper's table slot in the snapshot; 0 where Node could not make it. */
    countArgs: count,
  }),
  /** In load order, each where the loader placed it. */
  libs: v.array(
    v.object({
      name: path,
      aliases: v.array(v.string()),
      global: v.boolean(),
      memoryBase: count,
      tableBase: count,
    }),
  ),
  /** dlopen handles (heap addresses) → library name. */
  handles: v.record(v.string(), v.string()),
  got: v.object({ count, fnv1a: count }),
  fs: v.object({
    dirs: v.array(path),
    /** Every file the install added, with its size, in the order of their bytes in the bundle. */
    files: v.array(v.tuple([path, count])),
    bundleLength: count,
  }),
});

export type PackageRecord = v.InferOutput<typeof PackageRecordSchema>;

export function parsePackageRecord(bytes: Uint8Array): PackageRecord {
  const parsed = v.safeParse(PackageRecordSchema, JSON.parse(new TextDecoder().decode(bytes)));
  if (!parsed.success) throw new Error(`the package snapshot's record is malformed: ${v.summarize(parsed.issues)}`);
  return parsed.output;
}
