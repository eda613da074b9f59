// The warm spare: one booted engine kept ready per frame URL, so `Sandbox.create` and the
// replacement after a kill do not wait for Pyodide to boot. The spare a page asks for with
// `warmup` may also load and import packages once booted, while nobody is waiting on it; the
// replacement spares that follow do not, so they never compete for the CPU with a session's start.
import { Engine } from "./engine.js";

const spares = new Map<string, Promise<Engine>>();

function refill(frameUrl: string, packages: string[] = []): void {
  const spare = Engine.start(frameUrl);
  spares.set(frameUrl, spare);
  spare.then(
    (engine) => {
      // The worker preloads in the background; nothing waits for it.
      if (packages.length) engine.call({ type: "preload", packages }).catch(() => undefined);
    },
    () => spares.get(frameUrl) === spare && spares.delete(frameUrl),
  );
}

/** A booted engine: the spare when there is one; a new spare starts once this one is ready. */
export async function claimEngine(frameUrl: string): Promise<Engine> {
  const spare = spares.get(frameUrl);
  spares.delete(frameUrl);
  let engine = spare ? await spare.catch(() => null) : null;
  if (!engine || !engine.alive) engine = await Engine.start(frameUrl);
  if (!spares.has(frameUrl)) refill(frameUrl);
  return engine;
}

/** Start the spare now (e.g. at page load), so even the first `create` is quick. */
export function warmSpare(frameUrl: string, packages: string[] = []): Promise<void> {
  if (!spares.has(frameUrl)) refill(frameUrl, packages);
  return spares.get(frameUrl)!.then(() => undefined);
}

/** Stop the spare (tests, benchmarks, pages that are done with sandboxes). */
export function dropSpare(frameUrl: string): void {
  const spare = spares.get(frameUrl);
  spares.delete(frameUrl);
  void spare?.then((engine) => engine.kill(), () => undefined);
}
