// One execution under the watchdog: the run races its deadline and the caller's abort signal;
// when isolated, the interrupt buffer gets a grace period (state kept), then the frame is removed
// (state lost). A deadline ends as OUTCOME_DEADLINE_EXCEEDED, an abort as OUTCOME_CANCELLED.
// The grace counts from the deadline for a run whose cell had begun; while the run's packages
// load, no code of the caller's runs and an interrupt cannot land: once they are in, the run is
// skipped with its state intact. The frame answers the interrupt with whether the cell had begun
// (the worker marks it on the interrupt line, so a run costs no message for it); a worker that
// code has tampered with may hide it, which buys it PACKAGE_LOAD_GRACE_MS more before the frame
// is removed, and no more.
import type { KernelResult, StreamName, WorkerReply } from "../protocol/types.js";
import { EngineDied, type Engine } from "./engine.js";
import { SandboxError } from "./errors.js";
import { errorInfo, resultWithoutKernel, type Streamed } from "../protocol/results.js";
import { sha256Hex } from "./hash.js";
import type { RunCalls } from "./tools.js";

export const INTERRUPT_GRACE_MS = 2_000;
/**
 * The part of the grace kept for a page too busy to fire its timer on time, for removing the
 * frame and for building the result, so that a run which ignores the interrupt (a long C call)
 * settles inside its limit plus the grace. Half of it was too little on a heavily loaded machine
 * (CHANGELOG.md); an interrupted run that obeys answers well within what is left.
 */
const SETTLE_MARGIN_MS = 1_000;
/** The longest wait, once a run is asked to stop, for its packages to finish loading. */
export const PACKAGE_LOAD_GRACE_MS = 20_000;

export interface WatchOptions {
  timeoutMs: number;
  limits: Record<StreamName, number>;
  sinks: Partial<Record<StreamName, (text: string) => void>>;
  /** The run imported one of the modules a page may ready for (ANNOUNCED_IMPORTS). */
  onImport?: ((module: string) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** The run's tools and input() (sdk/tools.ts); its record becomes `audit.toolCalls`. */
  calls?: RunCalls | undefined;
}

export interface Watched {
  result: KernelResult;
  /** The engine was killed or died: the sandbox needs a fresh one. */
  engineLost: boolean;
}

const TIMEOUT = Symbol("timeout");
const ABORTED = Symbol("aborted");
type Stop = typeof TIMEOUT | typeof ABORTED;
type Settled = WorkerReply | SandboxError | Stop;

/** `event`, or TIMEOUT after `ms`, or ABORTED when `signal` fires first. */
function within<T>(event: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | Stop> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = (): void => undefined;
  const stop = new Promise<Stop>((resolve) => {
    timer = setTimeout(resolve, ms, TIMEOUT);
    onAbort = () => resolve(ABORTED);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([event, stop]).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  });
}

const isStop = (settled: Settled): settled is Stop => settled === TIMEOUT || settled === ABORTED;

/** The run under the watchdog; its audit lists the tool calls the host answered, whatever the outcome. */
export async function watchRun(engine: Engine, code: string, options: WatchOptions): Promise<Watched> {
  const watched = await watch(engine, code, options);
  watched.result.audit.toolCalls = options.calls?.close() ?? [];
  return watched;
}

async function watch(engine: Engine, code: string, options: WatchOptions): Promise<Watched> {
  const streamed: Streamed = { stdout: "", stderr: "", truncated: false };
  const onStream = (name: StreamName, text: string) => {
    const part = text.slice(0, Math.max(0, options.limits[name] - streamed[name].length));
    streamed.truncated ||= part.length < text.length;
    streamed[name] += part;
    try {
      if (part) options.sinks[name]?.(part);
    } catch {
      // a throwing callback must not end the run
    }
  };
  const onImport = (module: string) => {
    try {
      options.onImport?.(module);
    } catch {
      // a throwing callback must not end the run
    }
  };
  let onCellStart = (): void => undefined;
  const cellStart = new Promise<void>((resolve) => (onCellStart = resolve));
  // Only a result the kernel did not make needs it: the kernel hashes the code itself.
  let hashing: Promise<string> | null = null;
  const codeSha256 = () => (hashing ??= sha256Hex(code));
  const lost = async (outcome: KernelResult["outcome"], name: string, message: string): Promise<Watched> => ({
    result: resultWithoutKernel(outcome, errorInfo(name, message), streamed, await codeSha256()),
    engineLost: true,
  });
  const begun = performance.now();
  const { calls } = options;
  const run = engine.execute(
    code,
    {
      onStream,
      onImport,
      onCellStart: () => onCellStart(),
      ...(calls ? { onHostCall: (call) => calls.answer(call) } : {}),
    },
    calls?.host,
  );
  const reply = run.reply.catch((error: SandboxError) => error);
  let settled = await within(reply, options.timeoutMs, options.signal);
  const stop = isStop(settled) ? settled : null;
  const interrupted = stop !== null && engine.isolated;
  if (interrupted) {
    // The grace ends at a fixed time, counted from the deadline rather than from a timer that a
    // busy page may have fired late; from the cell's start when packages were still loading.
    const graceEnds =
      (stop === TIMEOUT ? begun + options.timeoutMs : performance.now()) + INTERRUPT_GRACE_MS - SETTLE_MARGIN_MS;
    run.interrupt();
    // A run still loading its packages answers once they are in, its cell skipped.
    await within(Promise.race([reply, cellStart]), PACKAGE_LOAD_GRACE_MS);
    settled = await within(reply, Math.max(0, graceEnds - performance.now()));
  }
  if (isStop(settled)) {
    const how = interrupted ? "did not stop when interrupted" : "was stopped";
    // In terminate-only mode every stop costs the state: the message says why.
    const restarted = engine.isolated
      ? "the sandbox was restarted"
      : "the sandbox was restarted (terminate-only mode: interrupts need cross-origin isolation)";
    if (stop === ABORTED) {
      engine.kill("cancelled");
      return lost("OUTCOME_CANCELLED", "CancelledError", `the run ${how} when cancelled; ${restarted}`);
    }
    engine.kill("deadline exceeded");
    return lost(
      "OUTCOME_DEADLINE_EXCEEDED",
      "TimeoutError",
      `the run ${how} at its ${options.timeoutMs} ms deadline; ${restarted}`,
    );
  }
  if (settled instanceof EngineDied) {
    return lost("OUTCOME_FAILED", settled.info.name, `${settled.info.message}; the sandbox was restarted`);
  }
  if (settled instanceof SandboxError) {
    engine.kill("protocol violation");
    return lost("OUTCOME_FAILED", "ProtocolError", `${settled.message}; the sandbox was restarted`);
  }
  if (settled.type === "result") {
    const result = settled.result;
    result.audit.codeSha256 ||= await codeSha256();
    if (interrupted && result.outcome === "OUTCOME_CANCELLED" && result.error) {
      if (stop === TIMEOUT) {
        result.outcome = "OUTCOME_DEADLINE_EXCEEDED";
        result.error.message = `interrupted at its ${options.timeoutMs} ms deadline; state is kept`;
      } else {
        result.error.message = "cancelled by the caller; state is kept";
      }
    }
    return { result, engineLost: false };
  }
  if (settled.type === "failed") {
    return {
      result: resultWithoutKernel("OUTCOME_FAILED", settled.error, streamed, await codeSha256()),
      engineLost: false,
    };
  }
  engine.kill("protocol violation");
  return lost("OUTCOME_FAILED", "ProtocolError", "the sandbox answered out of protocol; it was restarted");
}
