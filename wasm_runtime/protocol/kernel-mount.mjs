// Where the worker puts the kernel's wheel (a zip on sys.path): the build imports the kernel from
// the same path before it takes the snapshots (builder/warm_boot.mjs), so a worker that boots from
// one finds the kernel's lazily read files where the snapshot left them (sandbox/runtime.ts).
// Plain JavaScript so that Node runs it as it is.

export const KERNEL_WHEEL_DIR = "/lib/";

/**
 * @param {string} file the wheel's file name
 * @returns {string}
 */
export function kernelWheelPath(file) {
  return `${KERNEL_WHEEL_DIR}${file}`;
}
