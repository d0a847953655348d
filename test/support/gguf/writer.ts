// GGUF v3 writer, byte-compatible with the Python `gguf` package (GGUFWriter):
// header, KVs in insertion order, tensor infos with offsets relative to the data
// section, metadata padded with zeros to the alignment, then every tensor's bytes
// followed by zero padding to the alignment (also after the last one).
//
// Tensor bytes are produced lazily, one tensor at a time, and written straight to
// the file descriptor, so multi-GB files never sit in memory.
import { closeSync, openSync, writeSync } from 'node:fs';
import { ByteWriter, writeKv } from './encode.js';
import {
  GGML_MAX_DIMS,
  GGML_MAX_NAME,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_KEY_ALIGNMENT,
  GGUF_VERSION,
  type GgmlType,
  type GgufValue,
  GgufValueType,
  alignUp,
  tensorByteSize,
} from './types.js';

export { ByteWriter, writeKv, writeScalar, writeValue } from './encode.js';

export interface GgufKv {
  readonly key: string;
  readonly value: GgufValue;
}

export type TensorBytes = Uint8Array | Iterable<Uint8Array>;

export interface GgufTensorSource {
  readonly name: string;
  /** ggml ne order, fastest first. */
  readonly ne: readonly number[];
  readonly type: GgmlType;
  /** Encoded tensor bytes, or a function called when the writer reaches this tensor. */
  readonly data: TensorBytes | (() => TensorBytes);
}

export interface GgufWriteOptions {
  /** Header version; anything but 3 is for malformed-file tests. */
  readonly version?: number;
}

/** Where things ended up in the file, for tests that patch bytes afterwards. */
export interface GgufLayout {
  readonly alignment: number;
  /** Absolute file offset of each KV's key string, by key. */
  readonly kvPos: ReadonlyMap<string, number>;
  readonly tensorInfoStart: number;
  readonly tensors: readonly {
    readonly name: string;
    /** Absolute file offset of this tensor's info record (its name string). */
    readonly infoPos: number;
    /** Absolute file offset of the uint64 data-offset field in the info record. */
    readonly offsetFieldPos: number;
    /** Offset relative to dataOffset. */
    readonly offset: number;
    readonly byteSize: number;
  }[];
  readonly dataOffset: number;
  readonly fileSize: number;
}

const utf8 = new TextEncoder();

/** The alignment a reader will use: general.alignment when present, else 32. */
export function alignmentOf(kv: readonly GgufKv[]): number {
  const entry = kv.find((e) => e.key === GGUF_KEY_ALIGNMENT);
  if (!entry) return GGUF_DEFAULT_ALIGNMENT;
  if (entry.value.type !== GgufValueType.UINT32) throw new Error(`${GGUF_KEY_ALIGNMENT} must be UINT32`);
  const a = entry.value.value;
  if (a === 0 || (a & (a - 1)) !== 0) throw new Error(`${GGUF_KEY_ALIGNMENT} = ${a} is not a power of two`);
  return a;
}

function validate(kv: readonly GgufKv[], tensors: readonly GgufTensorSource[]): void {
  const keys = new Set<string>();
  for (const { key } of kv) {
    if (key.length === 0) throw new Error('empty KV key');
    if (keys.has(key)) throw new Error(`duplicate KV key ${key}`);
    keys.add(key);
  }
  const names = new Set<string>();
  for (const t of tensors) {
    if (names.has(t.name)) throw new Error(`duplicate tensor ${t.name}`);
    names.add(t.name);
    if (utf8.encode(t.name).length >= GGML_MAX_NAME) throw new Error(`tensor name too long for ggml: ${t.name}`);
    if (t.ne.length === 0 || t.ne.length > GGML_MAX_DIMS) throw new Error(`${t.name}: ${t.ne.length} dims`);
    if (t.ne.some((d) => !Number.isInteger(d) || d < 0)) throw new Error(`${t.name}: bad ne ${t.ne}`);
  }
}

/** Serialize header + KVs + tensor infos; tensor offsets follow the Python writer. */
export function encodeMetadata(
  kv: readonly GgufKv[],
  tensors: readonly GgufTensorSource[],
  options: GgufWriteOptions = {},
): { bytes: Uint8Array; layout: Omit<GgufLayout, 'fileSize'> } {
  validate(kv, tensors);
  const alignment = alignmentOf(kv);
  const w = new ByteWriter(1 << 16);
  w.bytes(utf8.encode('GGUF'));
  w.u32(options.version ?? GGUF_VERSION);
  w.u64(tensors.length);
  w.u64(kv.length);
  const kvPos = new Map<string, number>();
  for (const { key, value } of kv) {
    kvPos.set(key, w.length);
    writeKv(w, key, value);
  }
  const tensorInfoStart = w.length;
  const infos: GgufLayout['tensors'][number][] = [];
  let offset = 0;
  for (const t of tensors) {
    const infoPos = w.length;
    w.str(t.name);
    w.u32(t.ne.length);
    for (const d of t.ne) w.u64(d);
    w.u32(t.type);
    const offsetFieldPos = w.length;
    w.u64(offset);
    const byteSize = tensorByteSize(t.type, t.ne);
    infos.push({ name: t.name, infoPos, offsetFieldPos, offset, byteSize });
    offset += alignUp(byteSize, alignment);
  }
  const dataOffset = alignUp(w.length, alignment);
  w.zeros(dataOffset - w.length);
  return { bytes: w.finish(), layout: { alignment, kvPos, tensorInfoStart, tensors: infos, dataOffset } };
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

function asChunks(data: TensorBytes): Iterable<Uint8Array> {
  return data instanceof Uint8Array ? [data] : data;
}

/**
 * Write a complete GGUF file. Tensor data sources are consumed in order; each
 * must yield exactly the byte size its type and shape imply.
 */
export function writeGguf(
  path: string,
  kv: readonly GgufKv[],
  tensors: readonly GgufTensorSource[],
  options: GgufWriteOptions = {},
): GgufLayout {
  const { bytes, layout } = encodeMetadata(kv, tensors, options);
  const fd = openSync(path, 'w');
  try {
    writeAll(fd, bytes);
    let pos = bytes.length;
    const pad = new Uint8Array(layout.alignment);
    tensors.forEach((t, i) => {
      const expected = layout.tensors[i].byteSize;
      let written = 0;
      const data = typeof t.data === 'function' ? t.data() : t.data;
      for (const chunk of asChunks(data)) {
        writeAll(fd, chunk);
        written += chunk.length;
      }
      if (written !== expected) throw new Error(`${t.name}: wrote ${written} bytes, expected ${expected}`);
      const padding = alignUp(written, layout.alignment) - written;
      writeAll(fd, pad.subarray(0, padding));
      pos += written + padding;
    });
    return { ...layout, fileSize: pos };
  } finally {
    closeSync(fd);
  }
}
