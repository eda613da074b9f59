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

/** Hold the session's lock until the returned function is called; throws SessionLocked if taken. */
export function holdSessionLock(id: string): Promise<() => void> {
  const locks = globalThis.navigator?.locks;
  if (!locks)
    throw new SandboxError(
      "unsupported",
      "this browser has no Web Locks API: persisted sessions need it to keep one writer",
    );
  return new Promise((resolve, reject) => {
    locks
      .request(lockName(id), { ifAvailable: true }, (lock) => {
        if (!lock) {
          reject(
            new SessionLocked(`the session ${id} is open in another tab or window; close it there to open it here`),
          );
          return undefined;
        }
        return new Promise<void>((release) => resolve(release));
      })
      .catch(reject);
  });
}
