// What the app keeps with a persisted sandbox (its appData): the transcript shown to the user and
// the conversation as the model saw it. A sandbox saved without them (e.g. through the SDK) shows
// its run history as console runs.
import { newTranscript, outputText, type ChatMessage, type HistoryEntry, type Transcript } from "wasmbox";

export interface SavedConversation {
  transcript: Transcript;
  messages: ChatMessage[];
}

const isTranscript = (v: unknown): v is Transcript =>
  typeof v === "object" &&
  v !== null &&
  (v as Transcript).format === "wasmbox-transcript" &&
  Array.isArray((v as Transcript).turns);

/** The conversation saved with a sandbox, or its runs as console turns when the app saved none. */
export function savedConversation(appData: unknown, history: HistoryEntry[]): SavedConversation {
  const saved = appData as Partial<SavedConversation> | null;
  if (saved && isTranscript(saved.transcript)) {
    return { transcript: saved.transcript, messages: Array.isArray(saved.messages) ? saved.messages : [] };
  }
  const transcript = newTranscript(null);
  history.forEach(({ code, result, at }, i) => {
    const callId = `history_${i + 1}`;
    transcript.turns.push({
      role: "user",
      at: new Date(at).toISOString(),
      parts: [
        { kind: "executable_code", callId, language: "python", code },
        { kind: "code_execution_result", callId, outcome: result.outcome, output: outputText(result), result },
      ],
    });
  });
  return { transcript, messages: [] };
}

/** A title from the first line of what the user typed. */
export function titleFrom(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line || "Untitled";
}
