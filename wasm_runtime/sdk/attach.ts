// A new worker for a sandbox: claimed from the warm pool, or booted from the snapshot its
// variables need, then sent the sandbox's configuration, files and variables at once.
import type { Activity } from "./activity.js";
import type { Engine } from "./engine.js";
import { mark } from "./marks.js";
import type { FileMirror } from "./mirror.js";
import type { Settings } from "./options.js";
import { claimEngine } from "./pool.js";
import { expectReply } from "./reply.js";
import type { SessionBinding } from "./session/binding.js";
import { startSnapshotFor } from "./start-snapshot.js";

/** The sandbox a new engine is for. */
export interface EngineFor {
  frameUrl: string;
  /** The page's: the spare that replaces a claimed one waits for it. */
  activity: Activity;
  settings: Settings;
  mirror: FileMirror;
  session: SessionBinding;
  /** Whether the sandbox was closed meanwhile: the new engine is then killed. */
  closed: () => boolean;
}

/**
 * An engine configured for the sandbox, with its mirrored files and its session's variables;
 * null when the sandbox was closed meanwhile. After a lost engine (`restart`) a persisted sandbox
 * gets its last save's variables back, so its next save never overwrites them with an empty
 * interpreter's.
 */
export async function attachEngine(sandbox: EngineFor, restart: boolean): Promise<Engine | null> {
  // Variables to restore: the next spare waits until they are in (pool.ts says why).
  let restored = (): void => undefined;
  const restoring = sandbox.session.restores(restart)
    ? new Promise<void>((resolve) => (restored = resolve))
    : undefined;
  try {
    return await attach(sandbox, restart, restoring);
  } finally {
    restored();
  }
}

async function attach(
  { frameUrl, activity, settings, mirror, session, closed }: EngineFor,
  restart: boolean,
  restoring: Promise<void> | undefined,
): Promise<Engine | null> {
  const packages = session.packagesFor(restart);
  const snapshot = await startSnapshotFor(packages);
  // A new engine takes requests before its worker has booted: the session's files and variables
  // are sent as soon as they are here, so that copying tens of MB to the worker overlaps its boot.
  let reachable!: (engine: Engine) => void;
  const early = new Promise<Engine>((resolve) => (reachable = resolve));
  const booted = claimEngine(frameUrl, activity, {
    hold: restoring,
    snapshot,
    reachable,
    packages,
    memoryBudgetBytes: settings.memoryBudgetBytes,
  });
  booted.catch(() => undefined); // awaited below
  const reached = Promise.race([early, booted]);
  // Before the session's files and variables are read: the worker loads what they need meanwhile.
  void reached.then(
    (engine) => session.preload(engine, restart),
    () => undefined,
  );
  const [engine, gathered] = await Promise.all([
    reached,
    session.gather(restart).then(
      (resuming) => ({ resuming }),
      (error: unknown) => ({ error }),
    ),
  ]);
  if ("error" in gathered) {
    engine.kill();
    throw gathered.error;
  }
  if (closed()) return killed(engine);
  const { resuming } = gathered; // a resume or a fork (their steps are marked)
  // Every other request that makes `engine` the sandbox's, posted at once (the worker takes them
  // in order, after the preload above): the configuration, the mirrored files, the variables.
  const configured = engine
    .call({ type: "configure", config: settings.kernel })
    .then((reply) => void expectReply(reply, "done"));
  const files = mirror.restore(engine);
  const state = session.restore(engine);
  for (const step of [configured, files, state]) step.catch(() => undefined); // awaited below
  await booted;
  if (resuming) mark("resume:engine");
  await configured;
  await files;
  if (resuming) mark("resume:files");
  await state;
  if (resuming) mark("resume:state");
  return closed() ? killed(engine) : engine; // closed while the worker booted
}

function killed(engine: Engine): null {
  engine.kill();
  return null;
}
