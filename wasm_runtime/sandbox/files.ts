// The worker's view of the sandbox's files: the working directory of Pyodide's in-memory FS.
import { mimeOf } from "../protocol/mime.js";
import { pathProblem, shadowedModule } from "../protocol/paths.js";
import { LIMITS, type FileInfo } from "../protocol/types.js";
import { RequestFailed } from "./failures.js";
import { WORKDIR, type Runtime } from "./runtime.js";

/** Throws an Error naming the problem when `path` may not be written. */
export function checkWritable(runtime: Runtime, path: string): void {
  const problem = pathProblem(path);
  if (problem) throw new RequestFailed(`invalid file name ${JSON.stringify(path)}: ${problem}`);
  const shadowed = shadowedModule(path);
  if (shadowed && runtime.moduleNames.has(shadowed)) {
    throw new RequestFailed(`invalid file name ${JSON.stringify(path)}: it would shadow the module '${shadowed}'`);
  }
}

export function writeFile(runtime: Runtime, path: string, data: Uint8Array): void {
  checkWritable(runtime, path);
  const full = `${WORKDIR}/${path}`;
  const dir = full.slice(0, full.lastIndexOf("/"));
  runtime.pyodide.FS.mkdirTree(dir);
  runtime.pyodide.FS.writeFile(full, data);
}

/** A file's bytes; a file over the per-request cap is refused by size, before it is read. */
export function readFile(runtime: Runtime, path: string): Uint8Array {
  const problem = pathProblem(path);
  if (problem) throw new RequestFailed(`invalid file name ${JSON.stringify(path)}: ${problem}`);
  const full = `${WORKDIR}/${path}`;
  let size: number;
  try {
    size = (runtime.pyodide.FS.stat(full) as { size: number }).size;
  } catch {
    throw new RequestFailed(`no such file in the sandbox: ${JSON.stringify(path)}`);
  }
  if (size > LIMITS.maxFileBytes) {
    const message = `${JSON.stringify(path)} is ${size} bytes, over the ${LIMITS.maxFileBytes}-byte cap on what one request returns`;
    throw new RequestFailed(message, { path, size, limit: LIMITS.maxFileBytes });
  }
  try {
    return runtime.pyodide.FS.readFile(full);
  } catch {
    throw new RequestFailed(`no such file in the sandbox: ${JSON.stringify(path)}`);
  }
}

/** The files of `paths` that can be read, up to maxFileBytes in all; the others are left out. */
export function readFiles(runtime: Runtime, paths: string[]): { path: string; data: Uint8Array }[] {
  const files: { path: string; data: Uint8Array }[] = [];
  let total = 0;
  for (const path of paths) {
    try {
      const data = readFile(runtime, path);
      if (total + data.byteLength > LIMITS.maxFileBytes) continue;
      total += data.byteLength;
      files.push({ path, data });
    } catch (error) {
      if (!(error instanceof RequestFailed)) throw error;
    }
  }
  return files;
}

/** Every regular file under the working directory, depth first, hidden entries skipped. */
export function listFiles(runtime: Runtime): FileInfo[] {
  const out: FileInfo[] = [];
  collect(runtime, "", out);
  return out;
}

function collect(runtime: Runtime, dir: string, out: FileInfo[]): void {
  const { FS } = runtime.pyodide;
  for (const name of FS.readdir(`${WORKDIR}/${dir}`)) {
    if (name.startsWith(".")) continue;
    const rel = dir ? `${dir}/${name}` : name;
    const stat = FS.stat(`${WORKDIR}/${rel}`) as { mode: number; size: number };
    if (FS.isDir(stat.mode)) collect(runtime, rel, out);
    else if (FS.isFile(stat.mode)) out.push({ path: rel, size: stat.size, mime: mimeOf(rel) });
    if (out.length > LIMITS.maxListEntries) {
      const message = `the sandbox holds more than ${LIMITS.maxListEntries} files, more than one listing returns`;
      throw new RequestFailed(message, { path: null, size: out.length, limit: LIMITS.maxListEntries });
    }
  }
}
