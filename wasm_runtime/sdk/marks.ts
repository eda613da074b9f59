// Performance marks of a sandbox's start (`wasmbox:…` in the page's performance timeline), so a
// page, a benchmark or DevTools can see where the time to a first result goes.
import type { WorkerReply } from "../protocol/types.js";

/** Mark `name` now, or at `epochMs` (a time from the worker, in ms since the epoch). */
export function mark(name: string, epochMs?: number): void {
  try {
    const startTime = epochMs === undefined ? undefined : Math.max(0, epochMs - performance.timeOrigin);
    performance.mark(`wasmbox:${name}`, startTime === undefined ? undefined : { startTime });
  } catch {
    // marks are for reading, never a reason to fail a start
  }
}

/** The worker's own start-up steps, as marks. */
export function markBootSteps(booted: Extract<WorkerReply, { type: "booted" }>): void {
  for (const { name, at } of booted.steps) mark(`worker:${name}`, at);
}
