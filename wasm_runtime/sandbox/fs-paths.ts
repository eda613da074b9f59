// Emscripten's path lookups, made cheaper for the paths nearly every file call has: absolute, or
// relative to the working directory, with no ".", ".." or empty component. FS.lookupPath
// normalises the whole path, then the path so far once more at each component, and a file's
// open() looks its path up several times (the open, the created file's parent, then fstat by
// the open file's path): for `open(name, "w").close()` that string work was a large share of
// the call. Here such a path is split once and walked node by node; any other path, and any walk
// that meets a symbolic link, takes Emscripten's own code, so every result is the same
// (tests/runtime/test_private_hooks.py compares the two on paths of every kind).
import type { PyodideInterface } from "pyodide";
import { emscriptenPaths, type LookupOptions, type LookupResult } from "./pyodide-private.js";

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
  return true;
}
