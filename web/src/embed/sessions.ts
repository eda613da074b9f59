// One sandbox per session name on the page: cells with the same `session` (or none) share it,
// so a variable set in one cell is there in the next.
import { Sandbox } from "wasmbox";

const sessions = new Map<string, Promise<Sandbox>>();

/** The session's sandbox, started on first use with every package its cells on the page ask for. */
export function sessionSandbox(name: string, packages: string[]): Promise<Sandbox> {
  let sandbox = sessions.get(name);
  if (!sandbox) {
    sandbox = Sandbox.create({ packages });
    sandbox.catch(() => sessions.delete(name)); // the next Run tries again
    sessions.set(name, sandbox);
  }
  return sandbox;
}

/** Package names from a `packages="numpy pandas"` attribute (spaces or commas). */
export function packageList(attribute: string | null): string[] {
  return (attribute ?? "").split(/[\s,]+/).filter((name) => /^[A-Za-z0-9._-]{1,100}$/.test(name));
}

/** Seconds from a `timeout="10"` attribute, as milliseconds; undefined keeps the SDK's default. */
export function timeoutMs(attribute: string | null): number | undefined {
  const seconds = Number(attribute);
  return attribute !== null && Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) * 1000 : undefined;
}
