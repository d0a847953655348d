// A GGUF v3 file written as the parakeet.cpp converter's Python `gguf` writer lays it out (and ggml's
// gguf_write_to_file): header, key/values in order, tensor infos with offsets relative to the data
// section, 32-byte alignment, then each tensor's bytes, zero-padded to the alignment. The app's one GGUF
// serializer: the .nemo importer streams it to a file, each tensor's bytes produced one at a time (a
// 2.4 GB model never sits in memory); the Silero converter takes the whole file's bytes (2 MB).
import type { FileHandle } from 'node:fs/promises';

export type GgufOutValue =
  | { readonly type: 'u32'; readonly value: number }
  | { readonly type: 'i32'; readonly value: number }
  | { readonly type: 'f32'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'str'; readonly value: string }
  | { readonly type: 'i32[]'; readonly value: readonly number[] }
  | { readonly type: 'str[]'; readonly value: readonly string[] };

export interface GgufOutTensor {
  readonly name: string;
  /** ggml order, fastest first. */
  readonly ne: readonly number[];
  /** ggml type id (0 F32, 1 F16, 8 Q8_0). */
  readonly type: number;
  readonly byteSize: number;
  readonly bytes: () => Promise<Uint8Array>;
}

const ALIGNMENT = 32;
const utf8 = new TextEncoder();

class Bytes {
  private readonly parts: Uint8Array[] = [];
  length = 0;
  private add(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    this.add(b);
  }
  i32(v: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, v, true);
    this.add(b);
  }
  u64(v: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(v), true);
    this.add(b);
  }
  f32(v: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.add(b);
  }
  str(s: string): void {
    const b = utf8.encode(s);
    this.u64(b.length);
    this.add(b);
  }
  raw(b: Uint8Array): void {
    this.add(b);
  }
  concat(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

// GGUF value type ids (gguf.h).
const T = { u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9 } as const;

function writeValue(out: Bytes, v: GgufOutValue): void {
  switch (v.type) {
    case 'u32': out.u32(T.u32); out.u32(v.value); return;
    case 'i32': out.u32(T.i32); out.i32(v.value); return;
    case 'f32': out.u32(T.f32); out.f32(v.value); return;
    case 'bool': out.u32(T.bool); out.raw(Uint8Array.of(v.value ? 1 : 0)); return;
    case 'str': out.u32(T.str); out.str(v.value); return;
    case 'i32[]': out.u32(T.arr); out.u32(T.i32); out.u64(v.value.length); v.value.forEach((x) => out.i32(x)); return;
    case 'str[]': out.u32(T.arr); out.u32(T.str); out.u64(v.value.length); v.value.forEach((x) => out.str(x)); return;
  }
}

const pad = (n: number): number => (ALIGNMENT - (n % ALIGNMENT)) % ALIGNMENT;

/** Header, key/values and tensor infos, padded to the alignment: the bytes before the first tensor. */
export function ggufHead(kv: readonly (readonly [string, GgufOutValue])[], tensors: readonly Omit<GgufOutTensor, 'bytes'>[]): Uint8Array {
  const head = new Bytes();
  head.raw(utf8.encode('GGUF'));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(kv.length);
  for (const [key, value] of kv) {
    head.str(key);
    writeValue(head, value);
  }
  let offset = 0;
  for (const t of tensors) {
    head.str(t.name);
    head.u32(t.ne.length);
    t.ne.forEach((d) => head.u64(d));
    head.u32(t.type);
    head.u64(offset);
    offset += t.byteSize + pad(t.byteSize);
  }
  head.raw(new Uint8Array(pad(head.length)));
  return head.concat();
}

function checkedBytes(t: GgufOutTensor, bytes: Uint8Array): Uint8Array {
  if (bytes.length !== t.byteSize) throw new Error(`internal: tensor ${t.name} has ${bytes.length} bytes, planned ${t.byteSize}`);
  return bytes;
}

/** Writes the file through `handle`; `onTensor(i)` after each tensor (progress, cancellation). */
export async function writeGgufFile(
  handle: FileHandle,
  kv: readonly (readonly [string, GgufOutValue])[],
  tensors: readonly GgufOutTensor[],
  onTensor: (index: number) => void,
): Promise<void> {
  let position = 0;
  const write = async (b: Uint8Array): Promise<void> => {
    let done = 0;
    while (done < b.length) done += (await handle.write(b, done, b.length - done, position + done)).bytesWritten;
    position += b.length;
  };
  await write(ggufHead(kv, tensors));
  for (let i = 0; i < tensors.length; i++) {
    const bytes = checkedBytes(tensors[i], await tensors[i].bytes());
    await write(bytes);
    await write(new Uint8Array(pad(bytes.length)));
    onTensor(i);
  }
}

/** A tensor whose bytes are already in memory. */
export type GgufInMemoryTensor = Omit<GgufOutTensor, 'bytes'> & { readonly data: Uint8Array };

/** The whole file's bytes, in memory (small files: the Silero VAD). */
export function encodeGgufBytes(kv: readonly (readonly [string, GgufOutValue])[], tensors: readonly GgufInMemoryTensor[]): Uint8Array {
  const out = new Bytes();
  out.raw(ggufHead(kv, tensors));
  for (const t of tensors) {
    out.raw(checkedBytes({ ...t, bytes: async () => t.data }, t.data));
    out.raw(new Uint8Array(pad(t.data.length)));
  }
  return out.concat();
}
