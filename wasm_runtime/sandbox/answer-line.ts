// The shared answer line: how a worker that is blocked inside a synchronous host call (a tool
// called without `await`, or input()) gets its answer. The worker's thread is stopped in
// Atomics.wait, so no message can reach it; the frame, whose thread is free, writes the answer
// the host sent it into this buffer and wakes the worker. Like the interrupt line it lives in
// the frame: a SharedArrayBuffer cannot cross to the host page (another agent cluster).
//
// Layout: four Int32 slots, then the answer's UTF-8 bytes. The worker writes CALL (the call it
// waits for) and STATE = WAITING before it posts the call; the frame writes only an answer for
// that call while the worker waits, so a late answer to an earlier call is dropped.

import { LIMITS } from "../protocol/limits.js";
import type { HostAnswer } from "../protocol/types.js";

const STATE = 0;
const CALL = 1;
const LENGTH = 2;
const FLAGS = 3;
const HEAD_BYTES = 4 * Int32Array.BYTES_PER_ELEMENT;
const IDLE = 0;
const WAITING = 1;
const ANSWERED = 2;
const OK = 1;
const STOPPED = 2;
/** How long the worker sleeps between looks at the interrupt line while it waits. */
const POLL_MS = 50;

export function createAnswerLine(): SharedArrayBuffer {
  return new SharedArrayBuffer(HEAD_BYTES + LIMITS.maxToolBytes);
}

/** Frame side: hand `answer` to the worker if it is waiting for that very call. */
export function writeAnswer(buffer: SharedArrayBuffer, answer: HostAnswer): void {
  const head = new Int32Array(buffer, 0, 4);
  if (Atomics.load(head, STATE) !== WAITING || Atomics.load(head, CALL) !== answer.callId) return;
  const body = new Uint8Array(buffer, HEAD_BYTES);
  let bytes = new TextEncoder().encode(answer.ok ? answer.value : answer.error);
  let ok = answer.ok;
  if (bytes.byteLength > body.byteLength) {
    bytes = new TextEncoder().encode(`the answer is over the ${LIMITS.maxToolBytes}-byte cap`);
    ok = false;
  }
  body.set(bytes);
  Atomics.store(head, LENGTH, bytes.byteLength);
  Atomics.store(head, FLAGS, (ok ? OK : 0) | (answer.stopped ? STOPPED : 0));
  Atomics.store(head, STATE, ANSWERED);
  Atomics.notify(head, STATE);
}

export interface LineAnswer {
  ok: boolean;
  text: string;
  stopped: boolean;
}

/** Worker side: one blocked call at a time. */
export class AnswerLine {
  private readonly head: Int32Array;
  private readonly body: Uint8Array;

  constructor(buffer: SharedArrayBuffer) {
    this.head = new Int32Array(buffer, 0, 4);
    this.body = new Uint8Array(buffer, HEAD_BYTES);
  }

  /** Before posting call `callId`: from now on the frame may answer it. */
  expect(callId: number): void {
    Atomics.store(this.head, CALL, callId);
    Atomics.store(this.head, STATE, WAITING);
  }

  /** Block until the answer is in, or `stopped()` says the run is being stopped. */
  wait(stopped: () => boolean): LineAnswer {
    while (Atomics.load(this.head, STATE) !== ANSWERED) {
      if (stopped()) {
        this.reset();
        return { ok: false, text: "the run was stopped while it waited for the host", stopped: true };
      }
      Atomics.wait(this.head, STATE, WAITING, POLL_MS);
    }
    const flags = Atomics.load(this.head, FLAGS);
    // A copy: TextDecoder refuses views of shared memory in some engines.
    const text = new TextDecoder().decode(this.body.slice(0, Atomics.load(this.head, LENGTH)));
    this.reset();
    return { ok: (flags & OK) !== 0, text, stopped: (flags & STOPPED) !== 0 };
  }

  private reset(): void {
    Atomics.store(this.head, STATE, IDLE);
    Atomics.store(this.head, CALL, 0);
  }
}
