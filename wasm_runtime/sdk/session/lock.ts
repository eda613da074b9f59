// One writer per persisted session across the page's tabs (Web Locks API): the tab that holds a
// session's lock saves it; another tab asking for it gets SessionLocked, never a shared store.

import { SandboxError } from "../errors.js";

/** Thrown by resume (or delete) while another tab has the session open (`type` "session_locked"). */
export class SessionLocked extends SandboxError {
  override name = "SessionLocked";
  constructor(message: string) {
    super("session_locked", message);
  }
}

const lockName = (id: string): string => `wasmbox-session:${id}`;

// Locks this page let go of whose release the browser has not finished: Firefox still reports
// such a lock as taken to an `ifAvailable` request made at once (a close, then a delete or resume).
const releasing = new Map<string, Promise<unknown>>();

/** Hold the session's lock until the returned function is called; throws SessionLocked if taken. */
export async function holdSessionLock(id: string): Promise<() => void> {
  const locks = globalThis.navigator?.locks;
  if (!locks)
    throw new SandboxError(
      "unsupported",
      "this browser has no Web Locks API: persisted sessions need it to keep one writer",
    );
  await releasing.get(id);
  return new Promise((resolve, reject) => {
    const held = locks.request(lockName(id), { ifAvailable: true }, (lock) => {
      if (!lock) {
        reject(new SessionLocked(`the session ${id} is open in another tab or window; close it there to open it here`));
        return undefined;
      }
      return new Promise<void>((release) =>
        resolve(() => {
          // `request` settles once the browser has released the lock.
          const done = held.catch(() => undefined).finally(() => releasing.get(id) === done && releasing.delete(id));
          releasing.set(id, done);
          release();
        }),
      );
    });
    held.catch(reject);
  });
}
