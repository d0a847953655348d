// A small GGUF v3 writer for the Silero VAD converter: string / uint32 / int32-array KVs and F32 / F16
// tensors, 32-byte alignment, the layout of ggml's gguf_write_to_file (header, KVs, tensor infos with offsets
// relative to the data section, zero padding to the alignment before the data and after every tensor).

import { f32ToF16Bits } from '../../shared/half.js';

export type GgufKvValue =
  | { type: 'string'; value: string }
  | { type: 'uint32'; value: number }
  | { type: 'int32[]'; value: readonly number[] };

export interface GgufTensorInput {
  name: string;
  /** PyTorch order (slowest first); written reversed, as ggml's ne. */
  shape: readonly number[];
  type: 'f32' | 'f16';
  values: Float32Array;
}

const ALIGNMENT = 32;
const TYPE_UINT32 = 4;
const TYPE_INT32 = 5;
const TYPE_STRING = 8;
const TYPE_ARRAY = 9;
const GGML_TYPE_F32 = 0;
const GGML_TYPE_F16 = 1;

class Bytes {
  private readonly parts: Uint8Array[] = [];
  length = 0;

  push(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }

  u32(v: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v, true);
    this.push(b);
  }

  i32(v: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setInt32(0, v, true);
    this.push(b);
  }

  u64(v: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(v), true);
    this.push(b);
  }

  str(s: string): void {
    const utf8 = new TextEncoder().encode(s);
    this.u64(utf8.length);
    this.push(utf8);
  }

  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad > 0) this.push(new Uint8Array(pad));
  }

  join(): Uint8Array {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

function tensorBytes(t: GgufTensorInput): Uint8Array {
  if (t.type === 'f32') return new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength).slice();
  const out = new Uint8Array(t.values.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < t.values.length; i++) view.setUint16(i * 2, f32ToF16Bits(t.values[i]!), true);
  return out;
}

/** The whole file's bytes. */
export function encodeGguf(kvs: ReadonlyMap<string, GgufKvValue>, tensors: readonly GgufTensorInput[]): Uint8Array {
  const head = new Bytes();
  head.push(new TextEncoder().encode('GGUF'));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(kvs.size);
  for (const [key, kv] of kvs) {
    head.str(key);
    switch (kv.type) {
      case 'string': head.u32(TYPE_STRING); head.str(kv.value); break;
      case 'uint32': head.u32(TYPE_UINT32); head.u32(kv.value); break;
      case 'int32[]':
        head.u32(TYPE_ARRAY);
        head.u32(TYPE_INT32);
        head.u64(kv.value.length);
        for (const v of kv.value) head.i32(v);
        break;
    }
  }
  const data = new Bytes();
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.values.length) throw new Error(`tensor ${t.name}: shape [${t.shape.join(', ')}] but ${t.values.length} values`);
    head.str(t.name);
    head.u32(t.shape.length);
    for (const d of [...t.shape].reverse()) head.u64(d);
    head.u32(t.type === 'f32' ? GGML_TYPE_F32 : GGML_TYPE_F16);
    head.u64(data.length);
    data.push(tensorBytes(t));
    data.padTo(ALIGNMENT);
  }
  head.padTo(ALIGNMENT);
  const out = new Uint8Array(head.length + data.length);
  out.set(head.join(), 0);
  out.set(data.join(), head.length);
  return out;
}
