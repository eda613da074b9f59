// The run's `audit.networkAttempts` from the browser: each request the CSP refused is a
// `securitypolicyviolation` event here. Firefox may deliver that event after the refused call has
// already failed in the worker (it goes through the frame's main thread), so a run that saw a
// refusal, or opened a WebSocket that has not connected yet, waits, briefly and only then, for its
// events before the result is sent.
import type { NetworkAttempt } from "../protocol/types.js";

/** Past this a missing event is taken as one the engine never fires (not worth a longer run). */
const LATE_EVENT_WAIT_MS = 2000;

let attempts: NetworkAttempt[] = [];
/** Refusals the wrappers below saw fail in this run; each should bring an event. */
let refusals = 0;
/** This run's WebSockets that have neither opened nor failed: a refused one brings an event. */
let connecting = new Set<WebSocket>();
/** Whether this engine fires the events in a worker at all (the start-up eval probe's does). */
let firesEvents = false;
let arrived: (() => void) | null = null;

self.addEventListener("securitypolicyviolation", (event) => {
  firesEvents = true;
  attempts.push({ kind: `csp:${event.effectiveDirective}`, target: event.blockedURI });
  arrived?.();
});

/** Count the refusals of the calls the CSP blocks whose failure the worker can see. */
export function watchRefusals(): void {
  const fetch = self.fetch;
  self.fetch = (...args: Parameters<typeof fetch>) =>
    fetch(...args).catch((error: unknown) => {
      refusals += 1;
      throw error;
    });
  const noted = <T extends object>(original: T): T =>
    new Proxy(original, {
      apply: (target, thisArg, args) => counting(() => Reflect.apply(target as () => unknown, thisArg, args)),
      construct: (target, args, newTarget) =>
        counting(() => Reflect.construct(target as new () => object, args, newTarget) as object),
    });
  // Code reaches the constructors through any function (`f.constructor`), not only the globals.
  const kinds = [function () {}, async function () {}, function* () {}, async function* () {}];
  for (const kind of kinds) {
    const prototype = Object.getPrototypeOf(kind) as { constructor: object };
    Object.defineProperty(prototype, "constructor", { value: noted(prototype.constructor), writable: true });
  }
  self.Function = Function.prototype.constructor as FunctionConstructor;
  self.eval = noted(self.eval);
  self.WebSocket = new Proxy(self.WebSocket, {
    construct: (target, args, newTarget) => {
      let socket: WebSocket;
      try {
        socket = Reflect.construct(target, args, newTarget) as WebSocket;
      } catch (error) {
        // Firefox refuses at once (NS_ERROR_CONTENT_BLOCKED); a bad URL is a SyntaxError.
        if (!(error instanceof DOMException && error.name === "SyntaxError") && !(error instanceof TypeError)) {
          refusals += 1;
        }
        throw error;
      }
      watchSocket(socket);
      return socket;
    },
  });
}

/** Elsewhere a refused socket fails later, by an `error` event; it is pending until it opens or fails. */
function watchSocket(socket: WebSocket): void {
  const pending = connecting;
  pending.add(socket);
  const settle = (failed: boolean) => {
    if (!pending.delete(socket)) return;
    if (failed && pending === connecting) refusals += 1;
    arrived?.();
  };
  socket.addEventListener("open", () => settle(false), { once: true });
  socket.addEventListener("error", () => settle(true), { once: true });
}

function counting<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (error instanceof EvalError) refusals += 1;
    throw error;
  }
}

/** Start a run's audit. */
export function beginAudit(): void {
  attempts = [];
  refusals = 0;
  connecting = new Set();
}

/** The run's refused requests, once the events of the refusals it saw have landed. */
export async function endAudit(): Promise<NetworkAttempt[]> {
  await nextTask(); // events are queued tasks: the usual case lands here
  const expected = () => refusals + connecting.size;
  if (firesEvents && attempts.length < expected()) {
    const deadline = performance.now() + LATE_EVENT_WAIT_MS;
    while (attempts.length < expected() && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        arrived = resolve;
        setTimeout(resolve, deadline - performance.now());
      });
      arrived = null;
    }
  }
  return attempts;
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
