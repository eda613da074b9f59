// Worker start-up as named steps: initRuntime → initFilesystem → initKernel.
import type { PyodideInterface } from "pyodide";
import type { PyProxy } from "pyodide/ffi";
import type { BootedFrom, KernelConfig, StartSnapshot } from "../protocol/types.js";
import { kernelWheelPath } from "../protocol/kernel-mount.mjs";
import { bootStep } from "./boot-steps.js";
import { loaderLog } from "./loader-log.js";
import { bootFromPackageSnapshot, type PackageSnapshotFiles } from "./package-snapshot.js";
import type { RuntimeFileBytes, RuntimeFiles } from "./runtime-fetch.js";
import { cStackLevels } from "./stack.js";
import { withPrecompiledWasm } from "./wasm-precompile.js";

declare const loadPyodide: typeof import("pyodide").loadPyodide;
declare function importScripts(...urls: string[]): void;

export const WORKDIR = "/home/pyodide";
/** Made by `wasmbox build` (wasm_runtime/builder/snapshot.py). */
const SNAPSHOT_FILE = "snapshot.bin";
const quiet = {
  messageCallback: (m: string) => void loaderLog.push(m),
  errorCallback: (m: string) => void loaderLog.push(m),
};
export { quiet as loaderSinks };

interface Manifest {
  packages: Record<string, { version: string; file: string; imports?: string[] }>;
  /** Absent from runtimes built before it, or without all of its packages. */
  packageSnapshot?: PackageSnapshotFiles | null;
  /** The plot-ready snapshot (builder/package_snapshot.py: PLOT_SNAPSHOT); absent likewise. */
  plotSnapshot?: PackageSnapshotFiles | null;
}

/** Mounted at boot (mountKernel): never installed again by a preload or a restore. */
export const KERNEL_PACKAGE = "wasmbox-kernel";

/** The kernel's wheel file name and bytes (fetched while Pyodide boots). */
async function kernelWheel(manifest: Promise<Manifest>, fileBytes: RuntimeFileBytes): Promise<[string, Uint8Array]> {
  const file = (await manifest).packages[KERNEL_PACKAGE]?.file;
  if (!file) throw new Error("the runtime has no kernel package: rebuild it with `wasmbox build`");
  return [file, await fileBytes(file)];
}

/**
 * Put the kernel on sys.path straight from its wheel (a pure-Python wheel is a zip that zipimport
 * reads), which skips loadPackage's installer bookkeeping on every boot.
 * The start-up snapshot was made with the wheel at this same path and the kernel imported
 * (builder/make_snapshot.mjs): the file is still needed for the kernel's lazy imports.
 */
function mountKernel(pyodide: PyodideInterface, [file, wheel]: [string, Uint8Array]): void {
  const path = kernelWheelPath(file);
  pyodide.FS.writeFile(path, wheel);
  const sys = pyodide.pyimport("sys");
  if (sys.path.count(path) === 0) sys.path.insert(0, path);
  sys.destroy();
}

export interface Runtime {
  pyodide: PyodideInterface;
  manifest: Manifest;
  moduleNames: Set<string>;
  bootedFrom: BootedFrom;
}

/** The manifest's entry for the snapshot a "packages" or "plot" start asks for. */
const SNAPSHOT_ENTRY = { packages: "packageSnapshot", plot: "plotSnapshot" } as const;

/**
 * Boot from the snapshot asked for, else the next: the package or plot-ready snapshot (packages
 * already imported), the build's start-up snapshot (several times faster than none), or from
 * scratch. A failed attempt leaves nothing behind: each boot makes a new interpreter.
 */
async function bootPyodide(
  runtimeUrl: string,
  fileBytes: RuntimeFiles,
  manifest: Promise<Manifest>,
  wanted: StartSnapshot,
): Promise<[PyodideInterface, BootedFrom]> {
  const config = {
    indexURL: runtimeUrl,
    stdout: (l: string) => void loaderLog.push(l),
    stderr: (l: string) => void loaderLog.push(l),
  };
  if (wanted !== "base") {
    try {
      const files = (await manifest)[SNAPSHOT_ENTRY[wanted]];
      if (!files) throw new Error("this runtime was built without one");
      return [await bootFromPackageSnapshot(files, fileBytes, config, withPrecompiledWasm), wanted];
    } catch (error) {
      const which = wanted === "plot" ? "plot-ready" : "package";
      loaderLog.push(`booting without the ${which} snapshot: ${error}`);
    }
  }
  try {
    const pyodide = await withPrecompiledWasm(() =>
      loadPyodide({ ...config, _loadSnapshot: fileBytes(SNAPSHOT_FILE) }),
    );
    return [pyodide, "base"];
  } catch (error) {
    loaderLog.push(`booting without the snapshot: ${error}`);
    return [await loadPyodide(config), "none"];
  }
}

export async function initRuntime(
  runtimeUrl: string,
  fileBytes: RuntimeFiles,
  snapshot: StartSnapshot = "base",
): Promise<Runtime> {
  // The SDK's worker script already holds Pyodide's loader (sdk/frame-doc.ts); older hosts did not.
  if (typeof loadPyodide !== "function") importScripts(new URL("pyodide.js", runtimeUrl).href);
  const manifestRead = fileBytes("manifest.json").then(
    (bytes) => JSON.parse(new TextDecoder().decode(bytes)) as Manifest,
  );
  const [[pyodide, bootedFrom], manifest, wheel] = await Promise.all([
    bootPyodide(runtimeUrl, fileBytes, manifestRead, snapshot).then((booted) => (bootStep("pyodide-booted"), booted)),
    manifestRead,
    kernelWheel(manifestRead, fileBytes),
  ]);
  mountKernel(pyodide, wheel);
  // Import the kernel now, while this worker is still a spare, so claiming it only builds a Kernel;
  // and adjust the interpreter before a spare's preloads (wasmbox_kernel/interpreter.py).
  const kernel = pyodide.pyimport("wasmbox_kernel");
  kernel.prepare_interpreter();
  kernel.destroy();
  bootStep("kernel-imported");
  return { pyodide, manifest, moduleNames: moduleNames(pyodide, manifest), bootedFrom };
}

/**
 * Load runtime packages and import them, ahead of any run (a warm spare does this while idle),
 * so the first `import pandas` of a session is instant. Unknown names are ignored. Each package
 * is one step, taken only once `idle()` resolves: a cell never waits for a preload it did not ask
 * for (it did, up to the watchdog's package grace, and a run's deadline went by before it began).
 * `stepDone` is called once each package is loaded, imported and warmed.
 */
export async function preloadPackages(
  runtime: Runtime,
  packages: string[],
  idle: () => Promise<void>,
  stepDone: () => void = () => undefined,
): Promise<void> {
  const plotting = runtime.pyodide.pyimport("wasmbox_kernel.plotting");
  // Booted from the plot-ready snapshot: its packages were preloaded and warmed when it was made.
  const done = runtime.bootedFrom === "plot" ? (runtime.manifest.plotSnapshot?.packages ?? []) : [];
  const wanted = (p: string): boolean => p in runtime.manifest.packages && p !== KERNEL_PACKAGE && !done.includes(p);
  try {
    for (const name of packages.filter(wanted)) {
      await idle();
      await runtime.pyodide.loadPackage([name], quiet);
      // Smaller steps first where the kernel names them (matplotlib: numpy, then matplotlib...).
      const steps = plotting.import_steps(name) as PyProxy;
      const modules = [...(steps.toJs() as string[]), ...(runtime.manifest.packages[name]?.imports ?? [])];
      steps.destroy();
      for (const module of modules) {
        await idle();
        runtime.pyodide.pyimport(module).destroy();
      }
      // What the package's first use pays once more (matplotlib: its first figure), paid now.
      await idle();
      plotting.warm_package(name);
      stepDone();
    }
  } finally {
    plotting.destroy();
  }
}

/** Names a file in the working directory must not shadow. */
function moduleNames(pyodide: PyodideInterface, manifest: Manifest): Set<string> {
  const sys = pyodide.pyimport("sys");
  const names = new Set<string>([...(sys.stdlib_module_names as Iterable<string>), ...Object.keys(sys.modules.toJs())]);
  sys.destroy();
  for (const pkg of Object.values(manifest.packages)) for (const name of pkg.imports ?? []) names.add(name);
  for (const name of ["js", "pyodide", "pyodide_js", "micropip", "wasmbox_kernel"]) names.add(name);
  return names;
}

export function initFilesystem(runtime: Runtime): void {
  runtime.pyodide.FS.mkdirTree(WORKDIR);
  runtime.pyodide.FS.chdir(WORKDIR);
}

/**
 * The kernel object for one sandbox's settings; preloads the packages it asked for.
 * `cellPrefix` names its cells' files (`<cell-1>`): the spare's rehearsal uses its own.
 */
export async function initKernel(runtime: Runtime, config: KernelConfig, cellPrefix = "cell"): Promise<PyProxy> {
  const { pyodide, manifest } = runtime;
  const available = Object.fromEntries(Object.entries(manifest.packages).map(([name, p]) => [name, p.version]));
  const options = pyodide.toPy({
    stdout_limit: config.stdoutLimit,
    stderr_limit: config.stderrLimit,
    cwd: WORKDIR,
    policy: config.policy,
    allow_install: config.allowInstall,
    available_packages: available,
    cell_prefix: cellPrefix,
    c_stack_levels: cStackLevels(navigator.userAgent),
  });
  const mod = pyodide.pyimport("wasmbox_kernel");
  try {
    // allowInstall: micropip is loaded now so the kernel can confine it to the runtime's own files
    // before any cell can use it (wasmbox_kernel/installs.py).
    const packages = config.allowInstall ? [...config.packages, "micropip"] : config.packages;
    if (packages.length) await pyodide.loadPackage(packages, quiet);
    return mod.Kernel(mod.KernelOptions.from_dict(options)) as PyProxy;
  } finally {
    options.destroy();
    mod.destroy();
  }
}
