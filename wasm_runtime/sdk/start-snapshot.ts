// Which snapshot a new worker for a session starts from: the package snapshot when every package
// the session's saved variables need is in it (their install and import are then already done),
// else the base one. See protocol/types.ts: StartSnapshot.
import type { StartSnapshot } from "../protocol/types.js";
import { packageSnapshotEntry } from "./runtime-files.js";

export async function startSnapshotFor(packages: readonly string[]): Promise<StartSnapshot> {
  if (!packages.length) return "base";
  const entry = await packageSnapshotEntry();
  return entry && packages.every((name) => entry.packages.includes(name)) ? "packages" : "base";
}
