// A spare rehearses a session's first cells on a throwaway kernel while nobody waits for it:
// a fresh worker runs its first cells on cold code (V8 compiles the worker's JavaScript and
// tiers up Python's WebAssembly only as they run), so a session's first cells would be slower
// than its next ones (`make bench-sandbox` prints both). The rehearsal's kernel is closed (its
// namespace and its `<rehearsal-N>` cells are dropped); it stops between two cells as soon as
// the worker has a request to serve, so a claim waits for one cell at most.
// The optimised WebAssembly is shared by the page's workers, so only the page's first spare also
// exercises the interpreter, which speeds up the page's first heavy import.
// A worker restored from the plot-ready snapshot has matplotlib imported but its figure path cold
// (its engine code, and the font files the snapshot released): its first figure costs about twice
// a second one, in every new worker. So such a spare also draws the snapshot's warm-up figure once
// more, last, and closes it, as the snapshot's build did.
import type { PyProxy } from "pyodide/ffi";
import { LIMITS, type KernelConfig } from "../protocol/types.js";
import { releaseKernel, runCell } from "./execute.js";
import { MemoryFigures } from "./memory.js";
import { HostCalls } from "./host-calls.js";
import { loaderLog } from "./loader-log.js";
import { initKernel, type Runtime } from "./runtime.js";

// The paths a session's first cells take: a value, a statement, output, an error's traceback.
const CELLS = ["1+1", "x = [1, 2]", "print(x)", "x[5]"];
const ROUNDS = 5;
// 0.4 s of exercise (wasmbox_kernel/exercise.py), in slices short enough for a claim to get in.
const EXERCISE_SLICES = 8;
const EXERCISE_SLICE_S = 0.05;
const CONFIG: KernelConfig = {
  policy: "default",
  packages: [],
  allowInstall: false,
  stdoutLimit: LIMITS.stdoutLimit,
  stderrLimit: LIMITS.stderrLimit,
  memoryBudgetBytes: Number.POSITIVE_INFINITY, // unused: the worker's budget is set by `configure` only
};

/** Run wasmbox_kernel/exercise.py in slices, yielding between them so a claim gets in. */
async function exerciseInterpreter(runtime: Runtime, claimed: () => boolean): Promise<void> {
  const module = runtime.pyodide.pyimport("wasmbox_kernel.exercise");
  try {
    for (let slice = 0; slice < EXERCISE_SLICES; slice++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (claimed()) return;
      module.exercise(EXERCISE_SLICE_S);
    }
  } finally {
    module.destroy();
  }
}

/** Throwaway cells have no tools and no input(). */
const noHost = new HostCalls(() => undefined, null, null);

export async function rehearse(runtime: Runtime, exercise: boolean, claimed: () => boolean): Promise<void> {
  let kernel: PyProxy | null = null;
  try {
    kernel = await initKernel(runtime, CONFIG, "rehearsal");
    for (let round = 0; round < ROUNDS; round++) {
      for (const code of CELLS) {
        if (claimed()) return;
        await runCell(
          runtime,
          kernel,
          { id: 0, code },
          // Figures of their own: each cell walks the heap, as a sandbox's first run does.
          { interrupts: null, memoryBudget: null, memoryFigures: new MemoryFigures(runtime.pyodide) },
          noHost,
          () => undefined,
        );
      }
    }
    if (exercise) await exerciseInterpreter(runtime, claimed);
  } catch (error) {
    loaderLog.push(`rehearsal: ${error}`); // a spare that could not rehearse still serves
  } finally {
    if (kernel) {
      kernel.close();
      releaseKernel(kernel);
      kernel.destroy();
    }
  }
  if (runtime.bootedFrom === "plot") await warmPlotPath(runtime, claimed);
}

/** Draw and close the plot-ready snapshot's warm-up figure, unless a claim got in first. */
async function warmPlotPath(runtime: Runtime, claimed: () => boolean): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (claimed()) return;
  const plotting = runtime.pyodide.pyimport("wasmbox_kernel.plotting");
  try {
    for (const name of runtime.manifest.plotSnapshot?.packages ?? []) plotting.warm_package(name);
  } catch (error) {
    loaderLog.push(`warming the plot-ready figure path: ${error}`); // the first figure stays cold
  } finally {
    plotting.destroy();
  }
}
