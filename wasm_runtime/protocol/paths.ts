// File names a sandbox accepts: relative, inside the working directory, printable.
// Both sides check (the host before sending, the worker before touching its filesystem).

// C0/C1 controls and the bidirectional overrides/isolates that make names lie about themselves.
const FORBIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
const MAX_PATH = 1024;
const MAX_SEGMENT = 255;

/** The reason `path` is refused, or null when it is acceptable. */
export function pathProblem(path: string): string | null {
  if (typeof path !== "string" || path.length === 0) return "the path is empty";
  if (path.length > MAX_PATH) return `the path is longer than ${MAX_PATH} characters`;
  if (FORBIDDEN_CHARS.test(path)) return "the path contains control or bidirectional-override characters";
  if (path.includes("\\")) return "the path contains a backslash; use '/'";
  if (path.startsWith("/")) return "the path must be relative to the working directory";
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..")
      return "the path may not contain '', '.' or '..' segments";
    if (segment.length > MAX_SEGMENT) return `a path segment is longer than ${MAX_SEGMENT} characters`;
  }
  return null;
}

const MODULE_SUFFIXES = [".py", ".pyc", ".pyw", ".so", ".pth"];

/** The module a file at `path` would shadow when the working directory is on sys.path. */
export function shadowedModule(path: string): string {
  const [top = "", ...rest] = path.split("/");
  if (rest.length > 0) return top;
  const suffix = MODULE_SUFFIXES.find((s) => top.endsWith(s));
  return suffix ? top.slice(0, -suffix.length) : "";
}
