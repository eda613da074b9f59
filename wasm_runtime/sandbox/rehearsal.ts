// A spare rehearses a session's first cells on a throwaway kernel while nobody waits for it.
// A fresh worker runs its first cells on cold code: V8 compiles the worker's JavaScript and tiers
// up Python's WebAssembly only as they run. Measured in Chromium on 2 cores: a session's first
// `1+1` took 11–25 ms and the next ones 3–8 ms (4–6 ms and 2–4 ms after a rehearsal of 20
// cells), against about 2 ms once warm. The rehearsal's kernel is closed (its namespace and its
// cells' lines, named `<rehearsal-N>`, are dropped); it stops between two cells as soon as the
// worker has a request to serve, so a claim waits for one cell at most.
// The optimised WebAssembly is shared by the page's workers, so only the page's first spare also
// exercises the interpreter: the first `import numpy` of a page then took 0.60 s, not 0.95 s.
import type { PyProxy } from "pyodide/ffi";
import { LIMITS, type KernelConfig } from "../protocol/types.js";
import { runCell } from "./execute.js";
import { loaderLog } from "./loader-log.js";
import { initKernel, type Runtime } from "./runtime.js";

// The paths a session's first cells take: a value, a statement, output, an error's traceback.
const CELLS = ["1+1", "x = [1, 2]", "print(x)", "x[5]"];
const ROUNDS = 5;
// 0.4 s of exercise (wasmbox_kernel/exercise.py): 16 slices gained nothing more, 3 about half.
const EXERCISE_SLICES = 8;
const EXERCISE_SLICE_S = 0.05;
const CONFIG: KernelConfig = {
  policy: "default",
  packages: [],
  allowInstall: false,
  stdoutLimit: LIMITS.stdoutLimit,
  stderrLimit: LIMITS.stderrLimit,
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

export async function rehearse(runtime: Runtime, exercise: boolean, claimed: () => boolean): Promise<void> {
  let kernel: PyProxy | null = null;
  try {
    kernel = await initKernel(runtime, CONFIG, "rehearsal");
    for (let round = 0; round < ROUNDS; round++) {
      for (const code of CELLS) {
        if (claimed()) return;
        await runCell(runtime, kernel, { id: 0, code }, null, () => undefined);
      }
    }
    if (exercise) await exerciseInterpreter(runtime, claimed);
  } catch (error) {
    loaderLog.push(`rehearsal: ${error}`); // a spare that could not rehearse still serves
  } finally {
    kernel?.close();
    kernel?.destroy();
  }
}
