// A file the user opens (picker or drop): a Jupyter notebook or the app's transcript export, told
// apart by content. Every refusal is an Error whose message says what is wrong with which file;
// nothing of the page changes until the file has been read in full.
import { parseTranscript, type Transcript } from "wasmbox";
import { fromNotebook } from "./ipynb.js";

/** Larger files are refused before they are read. */
export const MAX_OPEN_BYTES = 64_000_000;

export interface OpenedDocument {
  /** The conversation's title: the file's name. */
  title: string;
  transcript: Transcript;
}

/** Whether a dropped file is one to open rather than upload: a notebook, or our transcript export. */
export async function isDocument(file: File): Promise<boolean> {
  const name = file.name.toLowerCase();
  if (name.endsWith(".ipynb")) return true;
  if (!name.endsWith(".json")) return false;
  // A data file named .json is uploaded: only our export names its format near the start.
  return (await file.slice(0, 2048).text()).includes('"wasmbox-transcript"');
}

export async function readDocument(file: File): Promise<OpenedDocument> {
  const fail = (problem: string): never => {
    throw new Error(`${file.name} cannot be opened: ${problem}.`);
  };
  if (file.size > MAX_OPEN_BYTES)
    fail(
      `it is ${(file.size / 1e6).toFixed(1)} MB, and notebooks and transcripts up to ${MAX_OPEN_BYTES / 1e6} MB open here`,
    );
  let json: unknown;
  try {
    json = JSON.parse(await file.text());
  } catch (error) {
    return fail(`it is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const kind = typeof json === "object" && json !== null ? (json as Record<string, unknown>) : {};
  try {
    if (kind.format === "wasmbox-transcript") return { title: file.name, transcript: parseTranscript(json) };
    if ("nbformat" in kind || "cells" in kind) return { title: file.name, transcript: fromNotebook(json) };
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  return fail("it is neither a Jupyter notebook (.ipynb) nor a wasmbox transcript (JSON)");
}
