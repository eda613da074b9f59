// What the end of a watched run means for its sandbox, and the ExecutionResult `execute` returns:
// the files it wrote kept for a later worker, a memory budget it broke, a lost worker replaced
// (a persisted sandbox's with the variables of its last save), the value checked against
// `expect`, and the run added to the session's history.
import type { ExecutionResult } from "../protocol/types.js";
import type { Engine } from "./engine.js";
import { validateValue, type JsonSchema } from "./expect.js";
import { overBudget, overBudgetAfterRun } from "./memory-budget.js";
import type { FileMirror } from "./mirror.js";
import type { Settings } from "./options.js";
import type { SessionBinding } from "./session/binding.js";
import type { Watched } from "./watchdog.js";

/** The sandbox a run ended in. */
export interface RunIn {
  settings: Settings;
  mirror: FileMirror;
  session: SessionBinding;
  closed(): boolean;
  /** Replace the lost engine; resolves once the new one is ready. */
  restart(): Promise<void>;
}

/** The run, as `execute` started it. */
export interface Run {
  code: string;
  /** performance.now() when it left the queue. */
  started: number;
  /** Why the worker was lost while idle, before this run (what was in memory then is gone), or null. */
  lostWhileIdle: string | null;
  expect: JsonSchema | undefined;
}

export async function endRun(sandbox: RunIn, engine: Engine, watched: Watched, run: Run): Promise<ExecutionResult> {
  const { code, started, lostWhileIdle } = run;
  let stateLost = watched.engineLost;
  const { result } = watched;
  if (sandbox.closed()) {
    result.outcome = "OUTCOME_CANCELLED";
    return { ...result, durationMs: performance.now() - started, stateLost: true };
  }
  // Whatever the outcome: files written before a failure survive a later restart too.
  if (!stateLost) await sandbox.mirror.capture(engine, result.files);
  const budget = sandbox.settings.memoryBudgetBytes;
  const over = !stateLost && overBudgetAfterRun(engine, result, budget);
  stateLost ||= over;
  const { session } = sandbox;
  let stateRestored = lostWhileIdle === null ? null : session.restoredFromLastSave(true, lostWhileIdle);
  if (stateLost) stateRestored = await session.restartedWith(sandbox.restart(), stateRestored);
  if (over) overBudget(result, budget, stateRestored);
  const out: ExecutionResult = {
    ...result,
    durationMs: performance.now() - started,
    stateLost: stateLost || lostWhileIdle !== null,
    ...(stateRestored ? { stateRestored } : {}),
  };
  if (run.expect !== undefined) out.validation = validateValue(result.value, run.expect);
  session.ran(code, out);
  return out;
}
