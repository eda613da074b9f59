// "Run all": the conversation's code runs again, in order, in a new sandbox: the files it used are
// asked for first, each cell's new output replaces the recorded one in the log and the transcript,
// and cells whose output now differs are marked. It stops at the first cell that fails where the
// recorded run did not, as Jupyter's "Run all" stops at an error (the SDK's replayTranscript).
import { outputText, replayTranscript, type ReplayedRun, type ReplayReport, type Transcript } from "wasmbox";
import { filesUsed } from "../notebook/files-used.js";
import { askForFiles } from "../ui/files-prompt.js";
import { MAX_UPLOAD_BYTES } from "../ui/files.js";
import type { ReplayMarks } from "../ui/replay-marks.js";
import type { Conversation } from "./conversation.js";
import type { Workspace } from "./workspace.js";

export interface RunAllContext {
  workspace: Workspace;
  marks: ReplayMarks;
  note(text: string, kind?: "note" | "error"): void;
}

const codeCount = (transcript: Transcript): number =>
  transcript.turns.flatMap((t) => t.parts).filter((p) => p.kind === "executable_code").length;

/** A sandbox that ran nothing yet is new; one that did gets a copy of the conversation instead. */
async function inNewSandbox(context: RunAllContext, conversation: Conversation): Promise<Conversation> {
  const { sandbox } = await conversation.session;
  if (sandbox.history.length === 0) return conversation;
  const title = `${sandbox.title ?? "Untitled"} (run again)`;
  const copy = await context.workspace.openImported(
    { transcript: structuredClone(conversation.transcript), messages: [] },
    title,
  );
  context.note(`Run all runs in a new sandbox: this is a copy, “${title}”; the original stays in the list.`);
  return copy;
}

/** Ask for the files the code read that the sandbox does not have; false if the user cancelled. */
async function provideFiles(context: RunAllContext, conversation: Conversation, signal: AbortSignal): Promise<boolean> {
  const { sandbox } = await conversation.session;
  const present = new Set((await sandbox.listFiles()).map((file) => file.path));
  const missing = filesUsed(conversation.transcript).filter((name) => !present.has(name));
  if (!missing.length) return true;
  const chosen = await askForFiles(missing, signal);
  if (chosen === null) {
    context.note("Run all cancelled.");
    return false;
  }
  for (const [name, file] of chosen) {
    if (file.size > MAX_UPLOAD_BYTES) {
      context.note(`${file.name} is ${(file.size / 1e6).toFixed(1)} MB; the limit is 100 MB per file.`, "error");
      continue;
    }
    await sandbox.writeFile(name, new Uint8Array(await file.arrayBuffer()));
    context.note(`Uploaded ${file.name} to the sandbox as ${name}.`);
  }
  return true;
}

/** The new result replaces the recorded one, so an export holds what ran last. */
function keep(transcript: Transcript, run: ReplayedRun): void {
  for (const part of transcript.turns.flatMap((t) => t.parts)) {
    if (part.kind !== "code_execution_result" || part.callId !== run.callId) continue;
    part.result = run.result;
    part.outcome = run.result.outcome;
    part.output = outputText(run.result);
  }
}

function summary(report: ReplayReport): [string, "note" | "error"] {
  const ran = report.runs.length;
  const differ = report.runs.filter((run) => !run.same).length;
  const compared =
    "Text outputs are compared with line endings, trailing spaces and object addresses normalised; " +
    "images and charts by their type only.";
  const outputs = differ
    ? `${differ} of them differ from the recorded output (marked “differs”).`
    : "every output is the same as recorded.";
  let text = `Run all: ${ran} of ${ran + report.notRun.length} cells ran in a new sandbox; ${outputs} ${compared}`;
  if (report.stopped?.reason === "failed")
    text += ` It stopped at a cell that failed where the recorded run did not: ${report.notRun.length} after it did not run.`;
  if (report.stopped?.reason === "aborted") text += ` Stopped: ${report.notRun.length} cells did not run.`;
  return [text, differ || report.stopped ? "error" : "note"];
}

export async function runAll(context: RunAllContext, signal: AbortSignal): Promise<void> {
  const current = await (context.workspace.current ?? context.workspace.open(null));
  if (codeCount(current.transcript) === 0) return context.note("This conversation has no code to run.");
  const conversation = await inNewSandbox(context, current);
  if (!(await provideFiles(context, conversation, signal))) return;
  const { sandbox } = await conversation.session;
  const { marks } = context;
  const report = await replayTranscript(sandbox, conversation.transcript, {
    signal,
    onStart: (callId) => marks.running(callId),
    onRun: (run) => {
      marks.replayed(run);
      keep(conversation.transcript, run);
    },
  });
  for (const callId of report.notRun) marks.notRun(callId);
  context.note(...summary(report));
}
