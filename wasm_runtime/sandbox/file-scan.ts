// The working directory's files as the kernel's own scan finds them (wasmbox_kernel/fsscan.py:
// regular files, links not followed, at most maxListEntries in name order, 16 levels deep), walked
// here: the kernel's scan crosses from WebAssembly into the file system twice per file (the
// directory entry, then its stat), which for 10,000 files cost as much as creating them.
// Handed to Python as one text: path, size and modification time (ms) of each file, NUL-separated
// (no file name holds a NUL); the kernel compares it only with another scan of this walk.
import type { PyodideInterface } from "pyodide";
import { LIMITS } from "../protocol/types.js";
import { nodeFs, type FsNode } from "./pyodide-private.js";

const MAX_DEPTH = 16;

/**
 * From node to node: FS.stat and FS.readdir resolve the whole path, component by component, for
 * every file, which for 10,000 files was most of the walk.
 */
export function scanFiles(FS: PyodideInterface["FS"], root: string): string {
  const fs = nodeFs(FS);
  const fields: string[] = [];
  let found = 0;
  const walk = (directory: FsNode, prefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    let names: string[];
    try {
      names = directory.node_ops.readdir!(directory).filter((name) => name !== "." && name !== "..");
    } catch {
      return;
    }
    for (const name of inPythonOrder(names)) {
      if (found >= LIMITS.maxListEntries) return;
      try {
        // As FS.stat(path, true) finds it: a link not followed, a mountpoint's mounted root.
        let node = fs.lookupNode(directory, name);
        if (fs.isMountpoint(node)) node = node.mounted!.root;
        const stat = node.node_ops.getattr!(node);
        if (fs.isDir(stat.mode)) walk(node, `${prefix}${name}/`, depth + 1);
        else if (fs.isFile(stat.mode)) {
          fields.push(prefix + name, String(stat.size), String(stat.mtime.getTime()));
          found++;
        }
      } catch {
        continue; // gone, or unreadable: as the kernel's scan skips it
      }
    }
  };
  let top: FsNode;
  try {
    top = fs.lookupPath(root.replace(/\/+$/, ""), { follow: true }).node;
  } catch {
    return "";
  }
  walk(top, "", 0);
  return fields.join("\0");
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Names sorted as Python sorts them; without a surrogate pair, JavaScript's own order is the same. */
function inPythonOrder(names: string[]): string[] {
  return names.some((name) => SURROGATE.test(name)) ? names.sort(byCodePoint) : names.sort();
}

/**
 * Python's order of names (by code point), which the kernel's scan keeps to: JavaScript compares
 * UTF-16 units, which puts a character past U+FFFF (a surrogate pair) before U+E000–U+FFFF.
 */
export function byCodePoint(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return orderOf(x) - orderOf(y);
  }
  return a.length - b.length;
}

/** A UTF-16 unit's place in code point order: surrogates (which only pairs hold here) last. */
const orderOf = (unit: number): number =>
  unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
