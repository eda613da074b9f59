// The warm spare: one booted engine kept ready per frame URL, so `Sandbox.create` and the
// replacement after a kill do not wait for Pyodide to boot. The spare a page asks for with
// `warmup` may also load and import packages once booted, while nobody is waiting on it; the
// replacement spares that follow do not, so they never compete for the CPU with a session's start.
import type { StartSnapshot } from "../protocol/types.js";
import { Engine } from "./engine.js";
import { mark } from "./marks.js";

const spares = new Map<string, Promise<Engine>>();

// A spare's boot takes a core for about a second, which would slow the first runs of the sandbox
// that just claimed the last one (`make bench-sandbox` shows by how much). So the next spare
// waits while any sandbox starts or runs code, but not past REFILL_MAX_DELAY_MS, so a
// replacement after a hard kill is still ready soon.
const REFILL_POLL_MS = 100;
const REFILL_MAX_DELAY_MS = 1_500;
// "quiet": a page that runs code back to back (a program driving the SDK, `make bench-anywhere`)
// would otherwise share its cores with that boot; its next spare waits for a pause instead.
const REFILL_QUIET_MS = 1_000;

/** How a claimed spare is replaced: "soon" (once the page is idle, within 1.5 s) or "quiet" (once no
 * sandbox has started, run or finished code for REFILL_QUIET_MS, however long that takes). */
export type Refill = "soon" | "quiet";
const refills = new Map<string, Refill>();
// When a sandbox of the page last changed state (a run began or ended): a sample of `anyBusy` every
// REFILL_POLL_MS would miss runs that come often but briefly, as a program's calls do.
let lastActivity = 0;

/** Called by the sandboxes whenever one starts or finishes a run (or starts, or closes). */
export function noteStateChange(): void {
  lastActivity = performance.now();
}

/** Whether any sandbox of the page is starting or running code: the claimer knows, the pool asks. */
export type BusyCheck = () => boolean;

function refillWhenIdle(frameUrl: string, anyBusy: BusyCheck, hold: Promise<unknown>): void {
  const quiet = refills.get(frameUrl) === "quiet";
  let latest = 0;
  const attempt = (): void => {
    if (spares.has(frameUrl)) return;
    const now = performance.now();
    const wait = quiet ? anyBusy() || now - lastActivity < REFILL_QUIET_MS : anyBusy() && now < latest;
    if (wait) return void setTimeout(attempt, REFILL_POLL_MS);
    refill(frameUrl);
  };
  const start = (): void => {
    latest = performance.now() + REFILL_MAX_DELAY_MS;
    setTimeout(attempt, REFILL_POLL_MS);
  };
  hold.then(start, start);
}

// Frame URLs whose spare has been asked to exercise the interpreter (once per page is enough).
const exercised = new Set<string>();

function refill(frameUrl: string, packages: string[] = []): void {
  const spare = Engine.start(frameUrl);
  spares.set(frameUrl, spare);
  spare.then(
    (engine) => {
      // In the background: nothing waits for either. A preload's imports warm the code too, and a
      // spare claimed as it booted has someone waiting: it does not rehearse.
      if (packages.length) engine.call({ type: "preload", packages }).catch(() => undefined);
      else if (spares.get(frameUrl) === spare) {
        engine.call({ type: "rehearse", exercise: !exercised.has(frameUrl) }).then(
          () => mark("spare-rehearsed"),
          () => undefined,
        );
        exercised.add(frameUrl);
      }
    },
    () => spares.get(frameUrl) === spare && spares.delete(frameUrl),
  );
}

/**
 * A booted engine: the spare when there is one; a new spare starts once `anyBusy` says the page is
 * idle, and never before `hold` settles: a resume's package loading and unpickling take seconds of
 * CPU, which a spare's boot would share (the 1.5 s cap above is for a plain start's brief work).
 * A `snapshot` other than the spares' ("base") gets an engine of its own; the spare stays.
 * An engine started here is given to `reachable` before it has booted (Engine.start).
 */
export async function claimEngine(
  frameUrl: string,
  anyBusy: BusyCheck,
  hold: Promise<unknown> = Promise.resolve(),
  snapshot: StartSnapshot = "base",
  reachable?: (engine: Engine) => void,
): Promise<Engine> {
  if (snapshot !== "base") return Engine.start(frameUrl, snapshot, reachable);
  const spare = spares.get(frameUrl);
  spares.delete(frameUrl);
  let engine = spare ? await spare.catch(() => null) : null;
  if (!engine || !engine.alive) engine = await Engine.start(frameUrl, snapshot, reachable);
  if (!spares.has(frameUrl)) refillWhenIdle(frameUrl, anyBusy, hold);
  return engine;
}

/** Start the spare now (e.g. at page load), so even the first `create` is quick. */
export function warmSpare(frameUrl: string, packages: string[] = [], refillRule: Refill = "soon"): Promise<void> {
  refills.set(frameUrl, refillRule);
  if (!spares.has(frameUrl)) refill(frameUrl, packages);
  return spares.get(frameUrl)!.then(() => undefined);
}

/** Stop the spare (tests, benchmarks, pages that are done with sandboxes). */
export function dropSpare(frameUrl: string): void {
  const spare = spares.get(frameUrl);
  spares.delete(frameUrl);
  void spare?.then(
    (engine) => engine.kill(),
    () => undefined,
  );
}
