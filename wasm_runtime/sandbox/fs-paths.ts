// Emscripten's path lookups, made cheaper for the paths nearly every file call has: absolute, or
// relative to the working directory, with no ".", ".." or empty component. FS.lookupPath
// normalises the whole path, then the path so far once more at each component, and a file's
// open() looks its path up several times (the open, the created file's parent, then fstat by
// the open file's path): for `open(name, "w").close()` that string work was a large share of
// the call. Here such a path is split once and walked node by node; any other path, and any walk
// that meets a symbolic link, takes Emscripten's own code, so every result is the same
// (tests/runtime/test_private_hooks.py compares the two on paths of every kind). A new file in a
// MEMFS directory is also created without the ENOENTs Emscripten throws on the way (below).
import type { PyodideInterface } from "pyodide";
import {
  creatingFs,
  emscriptenPaths,
  type LookupOptions,
  type LookupResult,
  type NamedNode,
} from "./pyodide-private.js";

/** What normalising would change: an empty, "." or ".." component, or a trailing "/". */
const NOT_PLAIN = /\/\/|(^|\/)\.\.?(\/|$)|\/$/;

/** Install the shortcuts on this Pyodide's FS (once per worker); false where its FS is not as expected. */
export function shortcutPathLookups(pyodide: PyodideInterface): boolean {
  const paths = emscriptenPaths(pyodide);
  if (!paths) return false;
  const { FS, PATH } = paths;
  const normalize = PATH.normalize;
  PATH.normalize = (path: string): string =>
    typeof path === "string" && path !== "" && !NOT_PLAIN.test(path) ? path : normalize(path);
  const lookupPath = FS.lookupPath;
  FS.lookupPath = (path: string, options?: LookupOptions): LookupResult => {
    const opts = options ?? {};
    if (typeof path !== "string" || path === "" || opts.recurse_count) return lookupPath.call(FS, path, options);
    const absolute = path.startsWith("/") ? path : `${FS.cwd()}/${path}`;
    if (NOT_PLAIN.test(absolute)) return lookupPath.call(FS, path, options);
    // Object.assign's defaults in Emscripten's own: an option given as undefined stays undefined.
    const followMount = Object.hasOwn(opts, "follow_mount") ? opts.follow_mount : true;
    const parts = absolute.split("/"); // parts[0] is the root's empty name
    let node = FS.root;
    for (let i = 1; i < parts.length; i++) {
      const last = i === parts.length - 1;
      if (last && opts.parent) return { path: parts.slice(0, i).join("/") || "/", node };
      node = FS.lookupNode(node, parts[i]!);
      if (FS.isMountpoint(node) && (!last || followMount)) node = node.mounted!.root;
      if ((!last || opts.follow) && FS.isLink(node.mode)) return lookupPath.call(FS, path, options);
    }
    return { path: absolute, node };
  };
  createWithoutThrowing(paths.FS);
  return true;
}

const O_CREAT = 0o100;
const O_EXCL = 0o200;
const O_TRUNC = 0o1000;
const S_IFREG = 0o100000;

/**
 * Creating a file made Emscripten throw ENOENT twice and catch it (FS.open's lookup of the new
 * name, then FS.mayCreate's), and throws cost more in Firefox than in Chromium. Here a
 * name in a MEMFS directory is looked for in the name table, which holds every MEMFS node, and
 * a missing one is created as FS.open would, without the throws. Anything else (another file
 * system, a name that exists, a directory that cannot be searched, a tracking delegate) takes
 * Emscripten's own code.
 */
function createWithoutThrowing(paths: Parameters<typeof creatingFs>[0]): void {
  const creating = creatingFs(paths);
  if (!creating) return;
  const { fs: FS, memfsLookup } = creating;
  /** `name` in `dir`: its node, null when it surely does not exist, undefined when unsure. */
  const child = (dir: NamedNode, name: string): NamedNode | null | undefined => {
    if (FS.mayLookup(dir) || dir.node_ops.lookup !== memfsLookup) return undefined;
    for (let node = FS.nameTable![FS.hashName(dir.id, name)]; node; node = node.name_next)
      if (node.parent.id === dir.id && node.name === name) return node;
    return null;
  };
  const mayCreate = FS.mayCreate;
  FS.mayCreate = (dir: NamedNode, name: string): number => {
    const found = child(dir, name);
    if (found === undefined) return mayCreate.call(FS, dir, name);
    return found ? 20 /* EEXIST */ : FS.nodePermissions(dir, "wx");
  };
  const open = FS.open;
  FS.open = function (path: string | NamedNode, flags: number | string, mode?: number): unknown {
    const missing =
      typeof path === "string" && typeof flags === "number" && flags & O_CREAT && !FS.trackingDelegate?.onOpenFile
        ? missingFile(path)
        : false;
    if (!missing) return open.call(FS, path, flags, mode);
    // What FS.open does for a name that does not exist: make the file, open it unchecked.
    const node = FS.mknod(path as string, ((mode ?? 0o666) & 0o7777) | S_IFREG, 0);
    const ignored = FS.ignorePermissions;
    FS.ignorePermissions = true; // a file just created opens whatever its mode (as FS.open's own)
    try {
      return open.call(FS, node, (flags as number) & ~(O_EXCL | O_TRUNC), mode);
    } finally {
      FS.ignorePermissions = ignored;
    }
  };
  /** Whether `path` (plain) names a file surely missing from its MEMFS directory. */
  const missingFile = (path: string): boolean => {
    if (path === "" || NOT_PLAIN.test(path)) return false;
    const slash = path.lastIndexOf("/");
    const name = path.slice(slash + 1);
    const dirPath = slash < 0 ? "." : slash === 0 ? "/" : path.slice(0, slash);
    let dir: NamedNode;
    try {
      dir = paths.lookupPath(dirPath, { follow: true }).node as NamedNode;
    } catch {
      return false; // Emscripten's own open gives the error
    }
    return child(dir, name) === null;
  };
}
