// Where a session's first plot goes, in CPU time rather than wall-clock (a loaded machine's
// wall-clock is noise): npm `pyodide` booting the build's own runtime files in Node, installing
// packages with the kernel's wheel unpacker as the sandbox's worker does, then taking the first
// plot's steps one at a time. One process per sample (python -m tests.bench.first_plot_cpu runs
// it); prints one JSON object: CPU milliseconds of this process (all its threads) per step.
// The kernel's import patches go in as the worker's prepare_interpreter() puts them (the wheel
// unpacker; matplotlib's set() text from the build's table unless TABLE is "without").
//   node tests/bench/first_plot_cpu.mjs RUNTIME_DIR KERNEL_DIR [with|without]
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const [runtime, kernelDir, table = "with"] = process.argv.slice(2);
// As in raw_pyodide.mjs: the runtime's pyodide.asm.js is CommonJS under this ES-module package.
globalThis.require = require;
globalThis.__dirname = runtime.replace(/\/$/, "");
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
// Python reads it to time the unpacking inside loadPackage.
globalThis.firstPlotCpuMs = cpuMs;

const steps = {};
let last = cpuMs();
const step = (name) => {
  const now = cpuMs();
  steps[name] = now - last;
  last = now;
};

const { loadPyodide } = require("pyodide");
const pyodide = await loadPyodide({ indexURL: runtime, stdout: () => {}, stderr: () => {} });
for (const module of ["_patches/wheel_unpack.py", "_patches/artist_set.py", "after_import.py"]) {
  pyodide.FS.writeFile(`/tmp/${module.split("/").pop()}`, readFileSync(`${kernelDir}/wasmbox_kernel/${module}`));
}
// The kernel's unpacker, then a wrapper that adds up the CPU time spent in it.
pyodide.runPython(`
import sys, js
sys.path.insert(0, "/tmp")
import wheel_unpack
wheel_unpack.install_from_memory()
if ${table === "with" ? "True" : "False"}:
    import after_import, artist_set
    after_import.after_import({"matplotlib.artist": artist_set.use_shipped_table})
import pyodide._package_loader as loader
unpack = loader.unpack_buffer
unpack_ms = [0.0]
def timed_unpack(*args, **kwargs):
    started = js.firstPlotCpuMs()
    try:
        return unpack(*args, **kwargs)
    finally:
        unpack_ms[0] += js.firstPlotCpuMs() - started
loader.unpack_buffer = timed_unpack
import os
os.environ["MPLBACKEND"] = "agg"
`);
step("boot");
await pyodide.loadPackage(["matplotlib"], { messageCallback: () => {} });
step("packages");
steps["  unpacking the wheels"] = pyodide.runPython("unpack_ms[0]");
steps["  the rest (reading wheels, linking side modules)"] = steps.packages - steps["  unpacking the wheels"];
for (const [name, code] of [
  ["import numpy", "import numpy"],
  ["import matplotlib", "import matplotlib"],
  ["import matplotlib.pyplot", "import matplotlib.pyplot as plt"],
]) {
  pyodide.runPython(code);
  step(name);
}
// Drawn and encoded as the kernel captures a figure: PNG, cropped to what is drawn.
const FIGURE = `import io
figure = plt.figure()
plt.plot([1, 2, 3])
figure.savefig(io.BytesIO(), format="png", bbox_inches="tight")
plt.close(figure)`;
pyodide.runPython(FIGURE);
step("first figure (drawn, PNG)");
pyodide.runPython(FIGURE);
step("second figure");
console.log(JSON.stringify(steps));
process.exit(0);
