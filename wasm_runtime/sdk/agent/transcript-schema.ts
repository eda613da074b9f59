// A transcript read from outside (a file the user opened, a saved one handed to `Agent.create`):
// checked against the same result schema the host holds runs to, and rebuilt from its checked
// fields, so what is shown or replayed is what the format says and nothing more.
import * as v from "valibot";
import { ExecutionResultSchema } from "../../protocol/schema.js";
import { OUTCOMES } from "../../protocol/types.js";
import type { Transcript } from "./transcript.js";

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const callId = text(256);

const PartSchema = v.variant("kind", [
  v.object({ kind: v.literal("text"), text: text(1 << 24) }),
  v.object({ kind: v.literal("executable_code"), callId, language: v.literal("python"), code: text(1 << 22) }),
  v.object({
    kind: v.literal("code_execution_result"),
    callId,
    outcome: v.picklist(OUTCOMES),
    output: text(1 << 26),
    result: ExecutionResultSchema,
  }),
]);

const TurnSchema = v.object({
  role: v.picklist(["user", "model"]),
  parts: v.pipe(v.array(PartSchema), v.maxLength(10_000)),
  at: text(64),
  model: v.optional(text(256)),
  finish: v.optional(v.picklist(["answer", "step-limit", "stopped", "error"])),
  ungrounded: v.optional(v.pipe(v.array(text(256)), v.maxLength(1000))),
});

const TranscriptSchema = v.object({
  format: v.literal("wasmbox-transcript"),
  version: v.literal(1),
  model: v.nullable(text(256)),
  turns: v.pipe(v.array(TurnSchema), v.maxLength(100_000)),
});

/**
 * A transcript (the app's "Transcript (JSON)" export, `agent.transcript`) checked and rebuilt;
 * a TypeError naming the field at fault otherwise.
 */
export function parseTranscript(value: unknown): Transcript {
  const parsed = v.safeParse(TranscriptSchema, value, { abortEarly: true });
  if (parsed.success) return parsed.output as Transcript;
  const issue = parsed.issues[0];
  const field = v.getDotPath(issue);
  throw new TypeError(`not a wasmbox transcript: ${field ? `${field}: ` : ""}${issue.message}`);
}
