// Python's calls to the host during a run (tools and input()): the worker's end of the bridge.
// A call is posted over the port as `host-call` (the host checks and answers it: sdk/tools.ts).
// An awaited call gets its answer over the port; a blocking one waits on the shared answer line
// (answer-line.ts), which exists only where the engine has shared memory (interrupt mode).
// A call is only taken while its run is in progress: a task a run left behind is refused.
import type { HostAnswer, HostCall, HostCallKind, RunHost } from "../protocol/types.js";
import type { AnswerLine } from "./answer-line.js";
import type { RunInterrupts } from "./interrupt.js";

/** What the kernel gets for one run (wasmbox_kernel/host.py reads it). */
export interface RunBridge {
  /** JSON: `{ tools: ToolSpec[], input: boolean, can_block: boolean }`. */
  spec: string;
  /** An awaited call; resolves with the answer's JSON envelope (`envelope` below). */
  call(kind: HostCallKind, name: string, args: string): Promise<string>;
  /** A blocking call (only when `can_block`); returns the answer's JSON envelope. */
  call_sync(kind: HostCallKind, name: string, args: string): string;
}

const envelope = (ok: boolean, value: string, error: string, stopped = false): string =>
  JSON.stringify({ ok, value, error, stopped });
const RUN_ENDED = "the run that made this call has ended: the host answers only during its run";

export class HostCalls {
  private nextCall = 1;
  private readonly waiting = new Map<number, (answer: HostAnswer) => void>();

  constructor(
    private readonly post: (call: HostCall) => void,
    private readonly line: AnswerLine | null,
    private readonly interrupts: RunInterrupts | null,
  ) {}

  /** An answer over the port, to an awaited call; one for a call nobody waits for is dropped. */
  receive(answer: HostAnswer): void {
    const waiter = this.waiting.get(answer.callId);
    this.waiting.delete(answer.callId);
    waiter?.(answer);
  }

  /**
   * The bridge for run `id`; `end()` when the run is over refuses its later calls. No bridge
   * for a run given no tools and no input(): the kernel answers it as it would through one
   * (no tools, input() raises EOFError), without a proxy of it and its JSON per run.
   */
  forRun(id: number, host: RunHost | undefined): { bridge: RunBridge | null; end: () => void } {
    if (!host?.tools?.length && !host?.input) return { bridge: null, end: () => undefined };
    let active = true;
    const mine = new Set<number>();
    const spec = JSON.stringify({
      tools: host?.tools ?? [],
      input: host?.input ?? false,
      can_block: this.line !== null,
    });
    const send = (callId: number, kind: HostCallKind, name: string, args: string, sync: boolean) =>
      this.post({ type: "host-call", id, callId, kind, name, args, sync });
    const bridge: RunBridge = {
      spec,
      call: (kind, name, args) => {
        if (!active) return Promise.resolve(envelope(false, "", RUN_ENDED));
        const callId = this.nextCall++;
        mine.add(callId);
        const answered = new Promise<string>((resolve) => {
          this.waiting.set(callId, (answer) => {
            mine.delete(callId);
            resolve(envelope(answer.ok, answer.value, answer.error, answer.stopped));
          });
        });
        send(callId, kind, name, args, false);
        return answered;
      },
      call_sync: (kind, name, args) => {
        if (!active) return envelope(false, "", RUN_ENDED);
        if (!this.line) return envelope(false, "", "this engine cannot block");
        const callId = this.nextCall++;
        this.line.expect(callId);
        send(callId, kind, name, args, true);
        const answer = this.line.wait(() => this.interrupts?.takeSignal() ?? false);
        return envelope(answer.ok, answer.ok ? answer.text : "", answer.ok ? "" : answer.text, answer.stopped);
      },
    };
    const end = () => {
      active = false;
      for (const callId of mine)
        this.receive({ type: "host-answer", callId, ok: false, value: "", error: RUN_ENDED, stopped: false });
    };
    return { bridge, end };
  }
}
