// The worker's view of the sandbox's files: the working directory of Pyodide's in-memory FS.
import { pathProblem, shadowedModule } from "../protocol/paths.js";
import type { FileInfo } from "../protocol/types.js";
import { WORKDIR, type Runtime } from "./runtime.js";

const MIME_BY_EXTENSION: Record<string, string> = {
  txt: "text/plain", csv: "text/csv", json: "application/json", html: "text/html", md: "text/markdown",
  py: "text/x-python", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", svg: "image/svg+xml",
  pdf: "application/pdf", xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  parquet: "application/vnd.apache.parquet",
};

export function mimeOf(path: string): string {
  const ext = path.split(".").pop()?.toLowerCase() ?? "";
  return MIME_BY_EXTENSION[ext] ?? "application/octet-stream";
}

/** Throws an Error naming the problem when `path` may not be written. */
export function checkWritable(runtime: Runtime, path: string): void {
  const problem = pathProblem(path);
  if (problem) throw new Error(`invalid file name ${JSON.stringify(path)}: ${problem}`);
  const shadowed = shadowedModule(path);
  if (shadowed && runtime.moduleNames.has(shadowed)) {
    throw new Error(`invalid file name ${JSON.stringify(path)}: it would shadow the module '${shadowed}'`);
  }
}

export function writeFile(runtime: Runtime, path: string, data: Uint8Array): void {
  checkWritable(runtime, path);
  const full = `${WORKDIR}/${path}`;
  const dir = full.slice(0, full.lastIndexOf("/"));
  runtime.pyodide.FS.mkdirTree(dir);
  runtime.pyodide.FS.writeFile(full, data);
}

export function readFile(runtime: Runtime, path: string): Uint8Array {
  const problem = pathProblem(path);
  if (problem) throw new Error(`invalid file name ${JSON.stringify(path)}: ${problem}`);
  try {
    return runtime.pyodide.FS.readFile(`${WORKDIR}/${path}`);
  } catch {
    throw new Error(`no such file in the sandbox: ${JSON.stringify(path)}`);
  }
}

/** Every regular file under the working directory, depth first, hidden entries skipped. */
export function listFiles(runtime: Runtime, dir = "", out: FileInfo[] = []): FileInfo[] {
  const { FS } = runtime.pyodide;
  for (const name of FS.readdir(`${WORKDIR}/${dir}`)) {
    if (name.startsWith(".")) continue;
    const rel = dir ? `${dir}/${name}` : name;
    const stat = FS.stat(`${WORKDIR}/${rel}`) as { mode: number; size: number };
    if (FS.isDir(stat.mode)) listFiles(runtime, rel, out);
    else if (FS.isFile(stat.mode)) out.push({ path: rel, size: stat.size, mime: mimeOf(rel) });
  }
  return out;
}
