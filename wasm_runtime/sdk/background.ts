// Work nothing is waiting for (keeping runtime files for the next visit, a service worker's
// precache of the whole runtime): it waits until no sandbox of the page is starting or running
// code, then for an idle moment, so it never takes the CPU, the disk or the network from a
// sandbox's start and first result. A page that keeps its sandboxes busy still gets it done
// after MAX_WAIT_MS.
import type { Activity } from "./activity.js";

const MAX_WAIT_MS = 30_000;
const IDLE_TIMEOUT_MS = 2_000;

const idle = (task: () => void): void =>
  void (typeof requestIdleCallback === "function"
    ? requestIdleCallback(task, { timeout: IDLE_TIMEOUT_MS })
    : setTimeout(task, 50));

/** Run `task` once `activity` says no sandbox is starting or running code and the page is idle (or after MAX_WAIT_MS). */
export function inBackground(activity: Activity, task: () => void): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    stopWaiting();
    clearTimeout(timer);
    task();
  };
  // Checked again once idle: a sandbox may have started meanwhile.
  const attempt = () => idle(() => !activity.busy && run());
  const timer = setTimeout(run, MAX_WAIT_MS);
  const stopWaiting = activity.onIdle(attempt);
  if (!activity.busy) attempt();
}

/** Resolves as `inBackground` runs its task. */
export function whenIdle(activity: Activity): Promise<void> {
  return new Promise((resolve) => inBackground(activity, resolve));
}

/** The longest `busyWhile` holds background work back, whatever its work does. */
export const BUSY_WHILE_MAX_MS = 10_000;

/** `activity` is busy until `work` settles, for at most BUSY_WHILE_MAX_MS: page work a result's
 * paint waits on (a chart being drawn) holds background work back as a run does. */
export function busyWhile(activity: Activity, work: Promise<unknown>): void {
  const owner = {};
  let held = true;
  activity.note(owner, true);
  const done = (): void => {
    clearTimeout(timer);
    if (held) activity.note(owner, false);
    held = false;
  };
  const timer = setTimeout(done, BUSY_WHILE_MAX_MS);
  work.then(done, done);
}
