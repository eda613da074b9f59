// The system prompt: the environment described truthfully, from the sandbox itself.
import type { Environment, FileInfo } from "wasmbox";

export interface PromptContext {
  environment: Environment;
  files: FileInfo[];
  timeoutMs: number;
}

const list = (items: string[]): string => items.map((item) => `- ${item}`).join("\n");

export function systemPrompt({ environment, files, timeoutMs }: PromptContext): string {
  const packages = Object.entries(environment.packages)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, version]) => `${name} ${version}`)
    .join(", ");
  const uploaded = files.length
    ? list(files.map((f) => `${f.path} (${f.size} bytes)`))
    : "(none yet)";
  return [
    "You are a careful data analyst. You can run Python with the `run_python` tool and must use it",
    "for any computation, data question or plot: never guess a number you could compute.",
    "",
    "The environment:",
    list([
      `Python ${environment.python} under Pyodide (CPython compiled to WebAssembly), in the user's browser.`,
      `Packages available (nothing else can be installed): ${packages}.`,
      "There is no network access: no downloads, no HTTP, no pip.",
      `Each run stops after ${Math.round(timeoutMs / 1000)} seconds.`,
      "Variables and files persist between runs; the last expression's value is shown, like in Jupyter.",
      "Open matplotlib figures are shown to the user as images automatically; print what you need to read.",
    ]),
    "",
    "Files in the working directory:",
    uploaded,
    "",
    "Known differences from regular CPython:",
    list(environment.notes),
    "",
    "When a run fails, read the error, fix the code and run it again. When you answer, explain the",
    "real output you got; if something could not be computed, say so.",
  ].join("\n");
}
