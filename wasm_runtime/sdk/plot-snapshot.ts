// The plot-ready snapshot (builder/package_snapshot.py: PLOT_SNAPSHOT): the state of a spare that
// preloaded matplotlib while idle and drew a first figure, made at build time. A spare that would
// preload matplotlib boots from it once the page keeps its files, so a session created at once
// gets its first plot without waiting for the preload. The files are fetched once per device, in
// the background, never on a start's path: the spares before that boot from the base snapshot.
import type { StartSnapshot } from "../protocol/types.js";
import type { Activity } from "./activity.js";
import { mark } from "./marks.js";
import { allStored, keepForLaterVisits, plotSnapshotEntry, type PackageSnapshotEntry } from "./runtime-files.js";
import { savingData } from "./start-snapshot.js";

const filesOf = (entry: PackageSnapshotEntry): string[] => [entry.file, entry.record, entry.bundle];

/** The plot-ready snapshot's entry, if the runtime has one holding a package of `idlePackages`. */
async function plotSnapshotFor(idlePackages: readonly string[]): Promise<PackageSnapshotEntry | null> {
  if (!idlePackages.length) return null;
  const entry = await plotSnapshotEntry();
  return entry && idlePackages.some((name) => entry.packages.includes(name)) ? entry : null;
}

// Set once this origin has kept the files: until then a spare starts at once, as before, instead
// of waiting for the manifest and the store to say it has not (a first visit's spare is not
// delayed). A stale hint only costs that check.
const KEPT_HINT = "wasmbox-plot-snapshot-kept";
const hinted = (): boolean => {
  try {
    return globalThis.localStorage?.getItem(KEPT_HINT) === "1";
  } catch {
    return false; // storage disabled
  }
};
const hint = (): void => {
  try {
    globalThis.localStorage?.setItem(KEPT_HINT, "1");
  } catch {
    // storage disabled or full: spares keep booting from the base snapshot
  }
};

/** Whether a new spare with these idle packages may boot from the plot-ready snapshot (its
 * boot then reads 119 MB from the store and compiles 36 side modules: heavier than the base). */
export const plotSpareLikely = (idlePackages: readonly string[]): boolean => idlePackages.length > 0 && hinted();

/**
 * What a new spare boots from: "plot" when it would preload some of the plot-ready snapshot's
 * packages while idle (`idlePackages`; none: `warmup({ idlePackages: [] })`) and the page's store
 * holds the snapshot's files; else "base". Synchronously "base" while this origin never kept them.
 */
export function spareSnapshot(idlePackages: readonly string[]): "base" | Promise<StartSnapshot> {
  if (!idlePackages.length || !hinted()) return "base";
  return storedSnapshot(idlePackages);
}

async function storedSnapshot(idlePackages: readonly string[]): Promise<StartSnapshot> {
  try {
    const entry = await plotSnapshotFor(idlePackages);
    return entry && (await allStored(filesOf(entry))) ? "plot" : "base";
  } catch {
    return "base";
  }
}

let keeping = false;

/**
 * Keep the plot-ready snapshot's files in the page's store, for this page's next spares and later
 * visits: once per page, one file at a time, each once no sandbox is starting or running code and
 * checked against the manifest (runtime-files.ts: keepForLaterVisits, which also skips a file when
 * the origin's free storage is short). Skipped under Data Saver; a failure is retried later.
 */
export async function keepPlotSnapshot(idlePackages: readonly string[], activity: Activity): Promise<void> {
  if (keeping || savingData()) return;
  keeping = true;
  const entry = await plotSnapshotFor(idlePackages).catch(() => null);
  if (!entry) return void (keeping = false);
  try {
    await keepForLaterVisits(filesOf(entry), activity);
    if (await allStored(filesOf(entry))) {
      hint();
      mark("plot-snapshot-kept");
    }
  } catch {
    keeping = false;
  }
}
