// The working directory's files as the kernel's own scan finds them (wasmbox_kernel/fsscan.py:
// regular files, links not followed, at most maxListEntries in name order, 16 levels deep), walked
// here: the kernel's scan crosses from WebAssembly into the file system twice per file (the
// directory entry, then its stat), which for 10,000 files cost as much as creating them.
// Handed to Python as one text: path, size and modification time (ms) of each file, NUL-separated
// (no file name holds a NUL); the kernel compares it only with another scan of this walk.
import type { PyodideInterface } from "pyodide";
import { LIMITS } from "../protocol/types.js";

const MAX_DEPTH = 16;

interface Stat {
  mode: number;
  size: number;
  mtime: Date;
}

export function scanFiles(FS: PyodideInterface["FS"], root: string): string {
  const fields: string[] = [];
  let found = 0;
  const walk = (directory: string, prefix: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    let names: string[];
    try {
      names = FS.readdir(directory).filter((name) => name !== "." && name !== "..");
    } catch {
      return;
    }
    for (const name of names.sort(byCodePoint)) {
      if (found >= LIMITS.maxListEntries) return;
      const path = `${directory}/${name}`;
      try {
        const stat = FS.stat(path, true) as Stat; // not following a link
        if (FS.isDir(stat.mode)) walk(path, `${prefix}${name}/`, depth + 1);
        else if (FS.isFile(stat.mode)) {
          fields.push(prefix + name, String(stat.size), String(stat.mtime.getTime()));
          found++;
        }
      } catch {
        continue; // gone, or unreadable: as the kernel's scan skips it
      }
    }
  };
  walk(root.replace(/\/+$/, ""), "", 0);
  return fields.join("\0");
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
