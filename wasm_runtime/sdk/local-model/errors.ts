// Why a local model could not be used, as a string `type` (never `instanceof`):
//
//   "sha256-mismatch"  the weights' hash is not the one asked for (`expected`, `actual`);
//   "not-gguf"         the file is not a GGUF model;
//   "too-large"        the model would not fit in this page's memory (`required`, `available` bytes);
//   "download"         the weights could not be fetched (and are not in the page's store);
//   "unsupported"      this browser lacks what the engine needs (WebAssembly SIMD, exceptions);
//   "load"             the engine refused the weights;
//   "generation"       the engine failed while answering (e.g. the context is full).
// Each has a `hint`: what the user can try, in a sentence (the app shows it like a ChatError's).

export type LocalModelErrorType =
  "sha256-mismatch" | "not-gguf" | "too-large" | "download" | "unsupported" | "load" | "generation";

export interface LocalModelErrorDetails {
  expected?: string;
  actual?: string;
  required?: number;
  available?: number;
}

const HINTS: Record<LocalModelErrorType, string> = {
  "sha256-mismatch":
    "The model file is not the one expected: download it again from its source, or check the sha256 given.",
  "not-gguf": "Choose a .gguf model file (llama.cpp's format).",
  "too-large": "Choose a smaller model (fewer parameters or a smaller quantization), or a smaller contextSize.",
  download: "Check the network and the model's URL, then try again; once loaded, the model is kept for offline visits.",
  unsupported: "Use a current Chromium or Firefox: the local model needs WebAssembly SIMD and exceptions.",
  load: "The model could not be loaded: check that the file is a complete GGUF model llama.cpp supports.",
  generation: "Send the message again; if the conversation is long, start a new one (the model's context is full).",
};

export class LocalModelError extends Error {
  override readonly name = "LocalModelError";
  readonly expected: string | undefined;
  readonly actual: string | undefined;
  readonly required: number | undefined;
  readonly available: number | undefined;

  constructor(
    readonly type: LocalModelErrorType,
    message: string,
    details: LocalModelErrorDetails = {},
  ) {
    super(message);
    this.expected = details.expected;
    this.actual = details.actual;
    this.required = details.required;
    this.available = details.available;
  }

  get hint(): string {
    return HINTS[this.type];
  }
}
