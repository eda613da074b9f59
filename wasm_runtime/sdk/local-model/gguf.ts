// Just enough of a GGUF file's header to check it is one and to size its key-value cache before
// the engine allocates anything (https://github.com/ggml-org/ggml/blob/master/docs/gguf.md).
import { LocalModelError } from "./errors.js";

export interface GgufShape {
  architecture: string | null;
  layers: number | null;
  embedding: number | null;
  heads: number | null;
  headsKv: number | null;
  contextTrained: number | null;
  /** The model's own chat template (Jinja), when it carries one. */
  chatTemplate: string | null;
}

const MAGIC = 0x46554747; // "GGUF", little-endian
// Tokenizer vocabularies come first in most files: a few MB covers the keys we read.
const HEADER_BYTES = 16 << 20;
const WANTED = ["block_count", "embedding_length", "attention.head_count", "attention.head_count_kv", "context_length"];

type Scalar = number | bigint | boolean | string;

class Reader {
  offset = 0;
  private readonly view: DataView;
  private readonly decoder = new TextDecoder();

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  need(n: number): void {
    if (this.offset + n > this.bytes.byteLength) throw new RangeError("header longer than read");
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  u64(): number {
    this.need(8);
    const v = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return Number(v);
  }

  string(): string {
    const length = this.u64();
    this.need(length);
    const text = this.decoder.decode(this.bytes.subarray(this.offset, this.offset + length));
    this.offset += length;
    return text;
  }

  value(type: number): Scalar | null {
    const sizes: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
    if (type === 8) return this.string();
    if (type === 9) {
      const itemType = this.u32();
      const count = this.u64();
      for (let i = 0; i < count; i += 1) this.value(itemType);
      return null;
    }
    const size = sizes[type];
    if (size === undefined) throw new RangeError(`unknown GGUF value type ${type}`);
    this.need(size);
    const at = this.offset;
    this.offset += size;
    switch (type) {
      case 4:
        return this.view.getUint32(at, true);
      case 5:
        return this.view.getInt32(at, true);
      case 10:
        return Number(this.view.getBigUint64(at, true));
      case 7:
        return this.view.getUint8(at) !== 0;
      default:
        return null; // not a kind of value we read
    }
  }
}

/** The shape of the model in `file` (the first shard of a split model); refuses a non-GGUF file. */
export async function readGguf(file: Blob, name: string): Promise<GgufShape> {
  const bytes = new Uint8Array(await file.slice(0, HEADER_BYTES).arrayBuffer());
  const reader = new Reader(bytes);
  if (bytes.byteLength < 24 || reader.u32() !== MAGIC)
    throw new LocalModelError("not-gguf", `${name} is not a GGUF model file`);
  const version = reader.u32();
  if (version < 2) throw new LocalModelError("not-gguf", `${name} is GGUF version ${version}, too old for the engine`);
  reader.u64(); // tensor count
  const count = reader.u64();
  const values = new Map<string, Scalar>();
  try {
    for (let i = 0; i < count; i += 1) {
      const key = reader.string();
      const value = reader.value(reader.u32());
      if (value !== null) values.set(key, value);
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // A header longer than we read: what we have is enough, or the shape stays unknown.
  }
  const architecture =
    typeof values.get("general.architecture") === "string" ? (values.get("general.architecture") as string) : null;
  const numberOf = (key: string): number | null => {
    const v = architecture ? values.get(`${architecture}.${key}`) : undefined;
    return typeof v === "number" && v > 0 ? v : null;
  };
  const [layers, embedding, heads, headsKv, contextTrained] = WANTED.map(numberOf) as (number | null)[];
  const template = values.get("tokenizer.chat_template");
  return {
    architecture,
    layers: layers ?? null,
    embedding: embedding ?? null,
    heads: heads ?? null,
    headsKv: headsKv ?? heads ?? null,
    contextTrained: contextTrained ?? null,
    chatTemplate: typeof template === "string" ? template : null,
  };
}
