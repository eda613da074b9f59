// Files between the user and the sandbox: uploads with safe names, downloads as opaque bytes.
import { LIMITS } from "wasmbox";

/** The SDK's per-request file cap: a larger upload would be refused by `writeFile` anyway. */
export const MAX_UPLOAD_BYTES = LIMITS.maxFileBytes;

/** A name the sandbox accepts: the base name, printable, no separators or leading dots. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const cleaned = base
    .normalize("NFC")
    .replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, "")
    .replace(/^[.\s]+/, "")
    .trim()
    .slice(0, 200);
  return cleaned || "upload";
}

function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** Save bytes from the sandbox; the type is opaque so the browser never renders them. */
export function saveBytes(bytes: Uint8Array, path: string): void {
  saveBlob(new Blob([bytes as BlobPart], { type: "application/octet-stream" }), safeFileName(path));
}

/** Save an export (transcript JSON, notebook) that the app itself made. */
export function saveText(text: string, name: string, type: string): void {
  saveBlob(new Blob([text], { type }), name);
}
