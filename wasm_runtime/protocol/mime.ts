// The one extension → MIME table (mime.json), shared by the worker's file listing, the kernel's
// `result.files` (wasmbox_kernel/protocol_data.py) and the backend's static files, so a file has
// one `mime` wherever it is reported. Unknown extensions are application/octet-stream.
import table from "./mime.json";

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = table;

/** The MIME type of `path` by its extension (case-insensitive). */
export function mimeOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return (dot > 0 && MIME_BY_EXTENSION[name.slice(dot).toLowerCase()]) || "application/octet-stream";
}
