// The host page's side of runtime file delivery (see sandbox/runtime-fetch.ts): files are fetched
// from the page's own origin, so its HTTP cache serves repeat visits, and each file is fetched
// once per page however many sandboxes boot.
import { RUNTIME_FILE_NAME } from "../protocol.js";

const RUNTIME_URL = new URL("../runtime/", import.meta.url).href;
const files = new Map<string, Promise<ArrayBuffer>>();

/** A copy of the runtime file `name` (a copy, because the caller transfers it away). */
export async function runtimeFile(name: string): Promise<Uint8Array> {
  if (!RUNTIME_FILE_NAME.test(name)) throw new Error(`not a runtime file name: ${JSON.stringify(name)}`);
  let bytes = files.get(name);
  if (!bytes) {
    bytes = fetch(RUNTIME_URL + name).then((response) => {
      if (!response.ok) throw new Error(`${name}: ${response.status}`);
      return response.arrayBuffer();
    });
    bytes.catch(() => files.delete(name)); // a failure is not remembered
    files.set(name, bytes);
  }
  return new Uint8Array((await bytes).slice(0));
}
