// How this browser lets the watchdog stop a run. Interrupts need a SharedArrayBuffer in the
// sandbox frame, which only a cross-origin isolated frame gets; without one every stop restarts
// the sandbox (state lost, files kept). The mode is named, never chosen silently.

/** "interrupt": a stopped run keeps its state when Python reaches a check; "terminate-only": every stop restarts the sandbox. */
export type SandboxMode = "interrupt" | "terminate-only";

export interface ModeReport {
  mode: SandboxMode;
  /** Why the sandbox is terminate-only; null in interrupt mode. */
  modeReason: string | null;
}

/** The mode of a frame that reports `frameIsolated`, explained from the host page's side. */
export function modeOf(
  frameIsolated: boolean,
  pageIsolated: boolean = globalThis.crossOriginIsolated === true,
): ModeReport {
  if (frameIsolated) return { mode: "interrupt", modeReason: null };
  const modeReason = pageIsolated
    ? "this browser gives the sandbox's frame no SharedArrayBuffer (cross-origin isolation), so runs cannot be interrupted: a stop restarts the sandbox"
    : "the page is not cross-origin isolated (serve it with COOP same-origin and COEP require-corp), so runs cannot be interrupted: a stop restarts the sandbox";
  return { mode: "terminate-only", modeReason };
}
