// The warm spare: one booted engine kept ready per frame URL, so `Sandbox.create` and the
// replacement after a kill do not wait for Pyodide to boot. The spare a page asks for with
// `warmup` may also load and import packages once booted, while nobody is waiting on it; the
// replacement spares that follow do not, so they never compete for the CPU with a session's start.
import type { StartSnapshot } from "../protocol/types.js";
import type { Activity } from "./activity.js";
import { Engine } from "./engine.js";
import { mark } from "./marks.js";
import { keepPlotSnapshot, plotSpareLikely, spareSnapshot } from "./plot-snapshot.js";

const spares = new Map<string, Promise<Engine>>();
/** Each spare once its worker has booted. */
const bootedSpares = new WeakMap<Promise<Engine>, Engine>();

// A spare's boot takes a core for about a second, which would slow the first runs of the sandbox
// that just claimed the last one (`make bench-sandbox` shows by how much). So the next spare
// waits until no sandbox has started, run or ended code for REFILL_SETTLE_MS (a program's calls
// a few milliseconds apart are idle at most instants a poll samples), but not past
// REFILL_MAX_DELAY_MS, so a replacement after a hard kill is still ready soon.
const REFILL_POLL_MS = 100;
const REFILL_SETTLE_MS = 300;
const REFILL_MAX_DELAY_MS = 1_500;
// A plot-ready spare's boot is heavier (it reads 119 MB from the store and compiles 36 modules), so
// it waits longer: past the first plot of the session that just claimed one, but not through a
// long run, which would leave the page's next `create` to boot cold.
const REFILL_HEAVY_MAX_DELAY_MS = 5_000;
// "quiet": a page that runs code back to back (a program driving the SDK, `make bench-anywhere`)
// would otherwise share its cores with that boot; its next spare waits for a pause instead.
const REFILL_QUIET_MS = 1_000;

/** How a claimed spare is replaced: "soon" (once the page has been idle for REFILL_SETTLE_MS, within
 * 1.5 s) or "quiet" (once no sandbox has started, run or finished code for REFILL_QUIET_MS, however
 * long that takes). */
export type Refill = "soon" | "quiet";
const refills = new Map<string, Refill>();

/** `activity` is the claimer's page: whether any of its sandboxes is starting or running code, and since when. */
function refillWhenIdle(frameUrl: string, activity: Activity, hold: Promise<unknown>): void {
  const quiet = refills.get(frameUrl) === "quiet";
  const heavy = plotSpareLikely(spareIdlePackages(frameUrl, []));
  let latest = 0;
  const attempt = (): void => {
    if (spares.has(frameUrl)) return;
    const idle = !activity.busy && activity.sinceChange() >= (quiet ? REFILL_QUIET_MS : REFILL_SETTLE_MS);
    const wait = !idle && (quiet || performance.now() < latest);
    if (wait) return void setTimeout(attempt, REFILL_POLL_MS);
    refill(frameUrl, activity);
  };
  const start = (): void => {
    latest = performance.now() + (heavy ? REFILL_HEAVY_MAX_DELAY_MS : REFILL_MAX_DELAY_MS);
    setTimeout(attempt, REFILL_POLL_MS);
  };
  hold.then(start, start);
}

// Frame URLs whose spare has been asked to exercise the interpreter (once per page is enough).
const exercised = new Set<string>();

// A session's first plot is its slowest first step (installing and importing matplotlib and
// drawing a first figure, seconds), and charts are among the commonest first answers. So a spare
// the page asked to load nothing loads these, but only once it has rehearsed and the page has been
// quiet (no sandbox starting or running code) for IDLE_PRELOAD_QUIET_MS, and only while it is
// still unclaimed: a page that never plots pays for it with idle CPU and the spare's memory,
// never with a slower run. `Sandbox.warmup({ idlePackages: [] })` turns it off. Once the page
// keeps the plot-ready snapshot's files (kept once it is quiet here), the next spares boot with
// this preload already done (plot-snapshot.ts).
const IDLE_PACKAGES = ["matplotlib"];
const IDLE_PRELOAD_QUIET_MS = 2_000;
// Claimed in the middle, a spare's preload (the idle one, or the packages `warmup` named) goes on
// only once the session has sent nothing for this long: cells back to back never wait for its
// steps or share the cores with them, and a user's or a model's pauses finish it.
const PRELOAD_SESSION_QUIET_MS = 1_000;
const idlePackages = new Map<string, string[]>();

/** Once the page is quiet, `engine` (still `frameUrl`'s unclaimed spare) preloads the idle packages. */
function preloadWhenQuiet(frameUrl: string, spare: Promise<Engine>, engine: Engine, activity: Activity): void {
  const packages = idlePackages.get(frameUrl) ?? IDLE_PACKAGES;
  const attempt = (): void => {
    if (!packages.length || spares.get(frameUrl) !== spare || !engine.alive) return;
    if (activity.busy || activity.sinceChange() < IDLE_PRELOAD_QUIET_MS)
      return void setTimeout(attempt, REFILL_POLL_MS);
    mark("spare-idle-preload");
    engine.call({ type: "preload", packages, quietMs: PRELOAD_SESSION_QUIET_MS }).catch(() => undefined);
    // So the next spares, and this device's later visits, boot with the preload already done.
    if (engine.bootedFrom !== "plot") void keepPlotSnapshot(packages, activity);
  };
  attempt();
}

// Set once a spare asked for the plot-ready snapshot booted from the base one (WebKitGTK cannot link it).
let plotUnlinked = false;

/** The packages a spare asked for `packages` preloads while idle (none for a plot-ready start). */
const spareIdlePackages = (frameUrl: string, packages: string[]): string[] =>
  packages.length || plotUnlinked ? [] : (idlePackages.get(frameUrl) ?? IDLE_PACKAGES);

/** A spare asked to load nothing preloads the idle packages: it boots from the plot-ready
 * snapshot instead when the page keeps it (plot-snapshot.ts). */
function startSpare(frameUrl: string, activity: Activity, packages: string[]): Promise<Engine> {
  const snapshot = spareSnapshot(spareIdlePackages(frameUrl, packages));
  if (snapshot === "base") return Engine.start(frameUrl, activity);
  return snapshot.then(async (from) => {
    const engine = await Engine.start(frameUrl, activity, from);
    // This engine cannot link it (WebKitGTK): the next spares no longer read its files to fall back.
    if (from === "plot" && engine.bootedFrom !== "plot") plotUnlinked = true;
    return engine;
  });
}

function refill(frameUrl: string, activity: Activity, packages: string[] = []): void {
  const spare = startSpare(frameUrl, activity, packages);
  spares.set(frameUrl, spare);
  spare.then(
    (engine) => {
      bootedSpares.set(spare, engine);
      // In the background: nothing waits for either. A preload's imports warm the code too, and a
      // spare claimed as it booted has someone waiting: it does not rehearse.
      if (packages.length)
        engine.call({ type: "preload", packages, quietMs: PRELOAD_SESSION_QUIET_MS }).catch(() => undefined);
      else if (spares.get(frameUrl) === spare) {
        engine.call({ type: "rehearse", exercise: !exercised.has(frameUrl) }).then(
          () => (mark("spare-rehearsed"), preloadWhenQuiet(frameUrl, spare, engine, activity)),
          () => undefined,
        );
        exercised.add(frameUrl);
      }
    },
    () => spares.get(frameUrl) === spare && spares.delete(frameUrl),
  );
}

// A session's memoryBudgetBytes counts all of its worker's memory, and a plot-ready spare boots
// holding matplotlib: tens of MB more than one from the base snapshot. Under a small budget that
// would leave the session's code less room than the same budget gives on a device that never
// kept the plot-ready snapshot, so a session claims one only if it holds at most this share of
// the budget; otherwise it boots its own worker from the base snapshot and the spare stays.
const PLOT_SPARE_BUDGET_SHARE = 0.25;

const leavesRoom = (engine: Engine, memoryBudgetBytes: number): boolean =>
  engine.bootedFrom !== "plot" || engine.bootMemoryBytes <= memoryBudgetBytes * PLOT_SPARE_BUDGET_SHARE;

/** `frameUrl`'s spare if it has booted and already loaded and imported every one of `packages`. */
function spareHolding(frameUrl: string, packages: readonly string[]): Engine | null {
  const spare = spares.get(frameUrl);
  const engine = spare ? bootedSpares.get(spare) : undefined;
  return engine?.alive && packages.every((name) => engine.preloaded.has(name)) ? engine : null;
}

/** What a sandbox claiming an engine brings (sdk/attach.ts). */
export interface Claim {
  /** Settles once the claimer's restore is done: the replacement spare's boot waits for it. */
  hold?: Promise<unknown>;
  /** What the claimer's worker must start from (a resume's variables need the package snapshot). */
  snapshot?: StartSnapshot;
  /** Given an engine started here before it has booted (Engine.start). */
  reachable?: (engine: Engine) => void;
  /** The runtime packages the claimer's variables need. */
  packages?: readonly string[];
  /** The claimer's memoryBudgetBytes. */
  memoryBudgetBytes?: number;
}

/**
 * A booted engine: the spare when there is one and it leaves `memoryBudgetBytes` room; a new
 * spare starts once `activity` says the page is idle, and never before `hold` settles: a resume's package loading and unpickling take seconds of
 * CPU, which a spare's boot would share (the 1.5 s cap above is for a plain start's brief work).
 * A `snapshot` other than "base" (variables that need `packages`) gets an engine of its own,
 * unless the spare has booted and already imported all of `packages` (a page's warm spare that
 * preloaded them, or a plot-ready one): a resume then skips the package snapshot's boot, whose
 * side modules' compile alone takes about a second in Firefox. Otherwise the spare stays.
 * An engine started here is given to `reachable` before it has booted (Engine.start).
 */
export async function claimEngine(
  frameUrl: string,
  activity: Activity,
  { hold = Promise.resolve(), snapshot = "base", reachable, packages = [], memoryBudgetBytes = Infinity }: Claim = {},
): Promise<Engine> {
  if (snapshot !== "base") {
    const holding = spareHolding(frameUrl, packages);
    if (!holding || !leavesRoom(holding, memoryBudgetBytes))
      return Engine.start(frameUrl, activity, snapshot, reachable);
    mark("spare-claimed-with-packages");
    spares.delete(frameUrl);
    refillWhenIdle(frameUrl, activity, hold);
    return holding;
  }
  const spare = spares.get(frameUrl);
  spares.delete(frameUrl);
  let engine = spare ? await spare.catch(() => null) : null;
  if (spare && engine?.alive && !leavesRoom(engine, memoryBudgetBytes)) {
    if (spares.has(frameUrl)) engine.kill();
    else spares.set(frameUrl, spare);
    engine = null;
  }
  if (!engine || !engine.alive) engine = await Engine.start(frameUrl, activity, snapshot, reachable);
  if (!spares.has(frameUrl)) refillWhenIdle(frameUrl, activity, hold);
  return engine;
}

/** Start the spare now (e.g. at page load), so even the first `create` is quick. */
export function warmSpare(
  frameUrl: string,
  activity: Activity,
  packages: string[] = [],
  refillRule: Refill = "soon",
): Promise<void> {
  refills.set(frameUrl, refillRule);
  if (!spares.has(frameUrl)) refill(frameUrl, activity, packages);
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

/** `Sandbox.warmup`'s options. */
export interface WarmupOptions {
  /** Loaded and imported by this spare once booted. */
  packages?: string[];
  refill?: Refill;
  /** Loaded by every spare asked for nothing else, once the page is quiet (default ["matplotlib"]). */
  idlePackages?: string[];
}

const packageNames = (packages: unknown): packages is string[] =>
  Array.isArray(packages) && packages.length <= 50 && packages.every((p) => typeof p === "string" && p.length < 100);

/** `Sandbox.warmup`'s options, checked, then `warmSpare`; bad options reject with a TypeError. */
export function warmup(
  frameUrl: string,
  activity: Activity,
  { packages = [], refill = "soon", idlePackages: idle }: WarmupOptions,
): Promise<void> {
  if (refill !== "soon" && refill !== "quiet") {
    return Promise.reject(new TypeError('warmup refill must be "soon" or "quiet"'));
  }
  for (const [option, names] of [
    ["packages", packages],
    ["idlePackages", idle ?? []],
  ] as const) {
    if (!packageNames(names))
      return Promise.reject(new TypeError(`warmup ${option} must be a list of at most 50 package names`));
  }
  if (idle) idlePackages.set(frameUrl, [...idle]);
  return warmSpare(frameUrl, activity, [...packages], refill);
}
