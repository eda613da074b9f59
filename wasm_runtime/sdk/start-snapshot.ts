// Which snapshot a new worker for a session starts from: the package snapshot when every package
// the session's saved variables need is in it (their install and import are then already done),
// else the base one. See protocol/types.ts: StartSnapshot.
import type { StartSnapshot } from "../protocol/types.js";
import type { Activity } from "./activity.js";
import { keepForLaterVisits, packageSnapshotEntry } from "./runtime-files.js";

export async function startSnapshotFor(packages: readonly string[]): Promise<StartSnapshot> {
  if (!packages.length) return "base";
  const entry = await packageSnapshotEntry();
  return entry && packages.every((name) => entry.packages.includes(name)) ? "packages" : "base";
}

let keeping = false;

/** The user asked the browser to save data (Chromium's Data Saver): nothing is fetched ahead. */
export const savingData = (): boolean =>
  (globalThis.navigator as { connection?: { saveData?: boolean } } | undefined)?.connection?.saveData === true;

/**
 * A session saved with these packages will start its next worker from the package snapshot,
 * usually on a later visit (a reload, the next day), when the page has never read its files:
 * keep them in the page's store now, in the background, so that start reads them from the store
 * instead of the network. Once per page; a failure is retried later.
 */
export async function keepStartSnapshotFor(packages: readonly string[], activity: Activity): Promise<void> {
  if (keeping || savingData() || (await startSnapshotFor(packages)) !== "packages" || keeping) return;
  keeping = true;
  const entry = await packageSnapshotEntry();
  if (!entry) return;
  await keepForLaterVisits([entry.file, entry.record, entry.bundle], activity).catch(() => (keeping = false));
}
