// The interrupt line between the sandbox frame (which asks) and its worker (whose Python obeys).
// Slot 0 is Pyodide's interrupt buffer. Slots 1 and 2 tie an interrupt to one run: the host's
// request can reach the frame before the worker has taken that run off its queue, and it must
// then stop the run when it starts rather than be wiped as a stale one; a request for a run that
// has already ended must not hit whatever Python runs next.
//
// The frame writes REQUESTED then reads RUNNING; the worker writes RUNNING then reads REQUESTED.
// Atomics are sequentially consistent, so at least one side sees the other's write: the interrupt
// is never lost, whichever side moves first.

const SIGNAL = 0;
const RUNNING = 1;
const REQUESTED = 2;
const SIGINT = 2; // what Pyodide's interrupt buffer expects in slot 0
// Long enough for an interrupted run to answer; together about the host's grace period.
const REPEAT_MS = 250;
const REPEATS = 10;

export function createInterruptBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
}

/**
 * Frame side: interrupt run `run` now if it is running, or as soon as it starts. Python's signal
 * check reads the buffer and then clears it, two steps rather than one atomic exchange, so a
 * write that lands between them is lost (a few runs in a hundred, in a tight loop). While the run
 * goes on the request is therefore repeated; that also stops code that swallows KeyboardInterrupt.
 * `running` is called once if the run is seen in its cell. A run not seen there has ended, or has
 * not begun its cell and then skips it (`begin`): its reply comes either way.
 */
export function requestInterrupt(buffer: SharedArrayBuffer, run: number, running: () => void = () => undefined): void {
  const slots = new Int32Array(buffer);
  Atomics.store(slots, REQUESTED, run);
  let attempts = 0;
  let seen = false;
  const deliver = (): void => {
    if (Atomics.load(slots, REQUESTED) !== run) return; // a later run's request took over
    if (Atomics.load(slots, RUNNING) === run) {
      Atomics.store(slots, SIGNAL, SIGINT);
      if (!seen) running();
      seen = true;
    }
    if (++attempts < REPEATS) setTimeout(deliver, REPEAT_MS);
  };
  deliver();
}

/** Worker side: one run's hold on the line, from the cell's start to its end. */
export class RunInterrupts {
  private readonly slots: Int32Array;

  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Int32Array(buffer);
  }

  /** Pyodide's view: only slot 0, which it polls while Python runs. */
  get signal(): Int32Array {
    return this.slots.subarray(SIGNAL, SIGNAL + 1);
  }

  /** Run `run` starts its cell. False when it was interrupted before it started: skip the cell. */
  begin(run: number): boolean {
    Atomics.store(this.slots, SIGNAL, 0); // a late write meant for an earlier run
    Atomics.store(this.slots, RUNNING, run);
    return Atomics.load(this.slots, REQUESTED) !== run;
  }

  /**
   * An interrupt that arrived while the worker was blocked outside Python (a synchronous host
   * call): taken off the line, so the caller raises KeyboardInterrupt itself.
   */
  takeSignal(): boolean {
    return Atomics.exchange(this.slots, SIGNAL, 0) !== 0;
  }

  end(): void {
    Atomics.store(this.slots, RUNNING, 0);
    Atomics.store(this.slots, SIGNAL, 0);
  }
}
