// The files a transcript's code read that it did not write itself: what "Run all" asks the user
// for. Two sources, in run order: what the recorded runs read (the kernel's audit, in transcripts)
// and file names in the code's string literals (a guess, for notebooks, which keep no audit). A
// name is not asked for once an earlier run (or an earlier write in the same code) made the file.
import type { Transcript } from "wasmbox";

const DATA_FILE =
  /\.(csv|tsv|txt|json|jsonl|ndjson|xlsx|xlsm|xls|ods|parquet|feather|arrow|pkl|pickle|npy|npz|h5|hdf5|zip|gz|bz2|xz|xml|sqlite|sqlite3|db|dat|geojson|yaml|yml|toml|sav|dta|png|jpe?g)$/i;
// A quoted string on one line, not an f-string (its name is not known before it runs).
const LITERAL = /(?<![\w])[rRbBuU]?(["'])((?:(?!\1)[^\n\\])+)\1/g;
// Text right before a literal that makes it a file the code writes.
const WRITE_CALL = /(\.to_\w+|savefig|\.save\w*|\.write\w*|ExcelWriter)\(\s*(\w+\s*=\s*)?$/;
const OPEN_CALL = /\bopen\(\s*(file\s*=\s*)?$/;
const WRITE_MODE = /^\s*,\s*(mode\s*=\s*)?[rRbBuU]?["'][^"']*[wax]/;

/** A relative path inside the working directory; absolute paths and URLs are not the user's to give. */
const isLocal = (name: string): boolean =>
  !name.startsWith("/") && !name.includes("://") && !name.split(/[\\/]/).includes("..") && name.length <= 200;

interface Mention {
  name: string;
  writes: boolean;
}

/** File names in the code's literals, in order, each saying whether the code writes it there. */
export function fileMentions(code: string): Mention[] {
  const mentions: Mention[] = [];
  for (const match of code.matchAll(LITERAL)) {
    const name = match[2]!.trim();
    if (!DATA_FILE.test(name) || !isLocal(name)) continue;
    const before = code.slice(Math.max(0, match.index - 80), match.index);
    const after = code.slice(match.index + match[0].length, match.index + match[0].length + 40);
    const writes = WRITE_CALL.test(before) || (OPEN_CALL.test(before) && WRITE_MODE.test(after));
    mentions.push({ name, writes });
  }
  return mentions;
}

export function filesUsed(transcript: Transcript): string[] {
  const needed = new Set<string>();
  const made = new Set<string>();
  const read = (name: string): void => {
    if (isLocal(name) && !made.has(name)) needed.add(name);
  };
  const results = new Map(
    transcript.turns
      .flatMap((t) => t.parts)
      .flatMap((p) => (p.kind === "code_execution_result" ? [[p.callId, p.result]] : [])),
  );
  for (const part of transcript.turns.flatMap((t) => t.parts)) {
    if (part.kind !== "executable_code") continue;
    for (const { name, writes } of fileMentions(part.code)) {
      if (writes) made.add(name);
      else read(name);
    }
    const result = results.get(part.callId);
    if (!result) continue;
    for (const name of result.audit.filesRead) read(name);
    for (const name of result.audit.filesWritten) made.add(name);
    for (const file of result.files) made.add(file.path);
  }
  return [...needed];
}
