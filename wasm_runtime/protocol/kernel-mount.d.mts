// Types for kernel-mount.mjs (plain JavaScript, shared with the build's Node scripts).
export const KERNEL_WHEEL_DIR: string;
export function kernelWheelPath(file: string): string;
