// memoryBudgetBytes on the host's side. A worker that refuses growth past the budget ends the run
// itself (sandbox/memory-budget.ts): nothing to do here. Where it cannot, the host compares the
// run's figure once the run ends and replaces an engine that went over (its state is lost).
import type { KernelResult, StateRestored } from "../protocol/types.js";
import type { Engine } from "./engine.js";

/** Whether the run's figure says the engine went over a budget it could not hold itself; it is then killed. */
export function overBudgetAfterRun(
  engine: Pick<Engine, "memoryBudget" | "kill">,
  result: KernelResult,
  budget: number,
): boolean {
  const over = engine.memoryBudget === "after-run" && (result.audit.peakMemoryBytes ?? 0) > budget;
  if (over) engine.kill("memory budget exceeded");
  return over;
}

/** A run found over the budget after it ended: its outcome says so, whatever it was. */
export function overBudget(result: KernelResult, budget: number, restored: StateRestored | null): void {
  const used = result.audit.peakMemoryBytes ?? 0;
  const after = restored
    ? "the sandbox was restarted with the variables of its last save, from before this run (files are kept)"
    : "the sandbox was restarted, so variables and imports are gone (files are kept)";
  const message = `the run used ${used} bytes of memory, over the sandbox's memoryBudgetBytes of ${budget}; ${after}`;
  result.outcome = "OUTCOME_MEMORY_EXCEEDED";
  result.error = {
    name: "MemoryError",
    message,
    traceback: result.error?.traceback ?? "",
  };
}
