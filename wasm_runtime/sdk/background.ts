// Work nothing is waiting for (keeping runtime files for the next visit, a service worker's
// precache of the whole runtime): it waits until no sandbox of the page is starting or running
// code, then for an idle moment, so it never takes the CPU, the disk or the network from a
// sandbox's start and first result. A page that keeps its sandboxes busy still gets it done
// after MAX_WAIT_MS.

const MAX_WAIT_MS = 30_000;
const IDLE_TIMEOUT_MS = 2_000;

const active = new Set<object>();
const waiting = new Set<() => void>();

/** `owner` (a sandbox) is starting or running code, or no longer is. */
export function noteActivity(owner: object, busy: boolean): void {
  if (busy) active.add(owner);
  else active.delete(owner);
  if (active.size === 0) for (const wake of [...waiting]) wake();
}

const idle = (task: () => void): void =>
  void (typeof requestIdleCallback === "function"
    ? requestIdleCallback(task, { timeout: IDLE_TIMEOUT_MS })
    : setTimeout(task, 50));

/** Run `task` once no sandbox is starting or running code and the page is idle (or after MAX_WAIT_MS). */
export function inBackground(task: () => void): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    waiting.delete(attempt);
    clearTimeout(timer);
    task();
  };
  // Checked again once idle: a sandbox may have started meanwhile.
  const attempt = () => idle(() => active.size === 0 && run());
  const timer = setTimeout(run, MAX_WAIT_MS);
  waiting.add(attempt);
  if (active.size === 0) attempt();
}

/** Resolves as `inBackground` runs its task. */
export function whenIdle(): Promise<void> {
  return new Promise((resolve) => inBackground(resolve));
}
