// What the page says when a conversation's sandbox comes back: after a reload (what was restored,
// what must be computed again) and after its worker was lost while idle.
import type { RestartedDetail, ResumeReport } from "wasmbox";

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;

const notRestoredText = (notRestored: ResumeReport["notRestored"]): string =>
  notRestored.length
    ? ` Not restored (run their code again): ${notRestored.map((v) => `${v.name}: ${v.reason}`).join("; ")}.`
    : "";

/** What came back after a reload, for the user: the variables, the files, and what to recompute. */
export function restoredNote({ restored, notRestored, files }: ResumeReport): string {
  const names = restored.length ? `${count(restored.length, "variable")} (${restored.join(", ")})` : "no variables";
  return `Restored from this browser: ${names} and ${count(files.length, "file")}.${notRestoredText(notRestored)}`;
}

/** The worker was lost while idle: say so at once, and what came back from the last save. */
export function restartedNote({ reason, stateRestored }: RestartedDetail): string {
  if (!stateRestored) return `The sandbox stopped (${reason}) and was restarted: its variables are gone, files kept.`;
  const { restored, notRestored } = stateRestored;
  const names = restored.length ? restored.join(", ") : "none";
  const saved = `restarted from its last save: variables ${names}; files kept.`;
  return `The sandbox stopped (${reason}) and was ${saved}${notRestoredText(notRestored)}`;
}
