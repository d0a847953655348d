// GGUF v2/v3 parser that validates as it goes, with the same acceptance rules as
// ggml's gguf.cpp (plus bounds checks against the file size, which gguf.cpp
// leaves to the loader). Every error names the byte offset and the key/tensor.
import { dequantize } from './dequantize.js';
import { type ByteSource, FileSource, MemorySource } from './source.js';
import {
  GGML_MAX_DIMS,
  GGML_MAX_NAME,
  GGUF_DEFAULT_ALIGNMENT,
  GGUF_KEY_ALIGNMENT,
  GgmlType,
  type GgufScalarType,
  type GgufTensorInfo,
  type GgufValue,
  GgufValueType,
  alignUp,
  elementCount,
  ggmlTypeInfo,
  ggufScalarSize,
} from './types.js';

export interface GgufFile {
  /** Path the file was read from ('' for in-memory parses). */
  readonly path: string;
  readonly fileSize: number;
  readonly version: number;
  readonly alignment: number;
  readonly kv: Map<string, GgufValue>;
  readonly tensors: Map<string, GgufTensorInfo>;
  /** Absolute file offset of the tensor-data section. */
  readonly dataOffset: number;
}

export class GgufFormatError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} (at byte ${offset})`);
    this.name = 'GgufFormatError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads little-endian primitives sequentially, failing cleanly at end of data. */
class Cursor {
  pos = 0;
  constructor(private readonly src: ByteSource) {}

  get remaining(): number {
    return this.src.size - this.pos;
  }

  err(message: string, at = this.pos): GgufFormatError {
    return new GgufFormatError(message, at);
  }

  take(n: number, what: string): DataView {
    if (n > this.remaining) throw this.err(`truncated: ${what} needs ${n} bytes, only ${this.remaining} left`);
    const b = this.src.read(this.pos, n);
    this.pos += n;
    return new DataView(b.buffer, b.byteOffset, n);
  }

  u32(what: string): number { return this.take(4, what).getUint32(0, true); }
  i32(what: string): number { return this.take(4, what).getInt32(0, true); }
  u64(what: string): bigint { return this.take(8, what).getBigUint64(0, true); }
  i64(what: string): bigint { return this.take(8, what).getBigInt64(0, true); }

  /** A uint64/int64 that must fit a JS number. */
  safe(v: bigint, what: string, at: number): number {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw this.err(`${what} = ${v} is absurd`, at);
    return Number(v);
  }

  str(what: string): string {
    const at = this.pos;
    const len = this.u64(`${what} length`);
    if (len > BigInt(this.remaining)) throw this.err(`${what}: string length ${len} exceeds the ${this.remaining} bytes left`, at);
    const view = this.take(Number(len), what);
    try {
      return utf8.decode(new Uint8Array(view.buffer, view.byteOffset, view.byteLength));
    } catch {
      throw this.err(`${what}: string is not valid UTF-8`, at);
    }
  }
}

function isScalarType(t: number): t is GgufScalarType {
  return t >= GgufValueType.UINT8 && t <= GgufValueType.FLOAT64 && t !== GgufValueType.ARRAY;
}

function readScalar(c: Cursor, type: GgufScalarType, what: string): number | bigint | boolean | string {
  if (type === GgufValueType.STRING) return c.str(what);
  const size = ggufScalarSize(type) ?? 0;
  const v = c.take(size, what);
  switch (type) {
    case GgufValueType.UINT8: return v.getUint8(0);
    case GgufValueType.INT8: return v.getInt8(0);
    case GgufValueType.UINT16: return v.getUint16(0, true);
    case GgufValueType.INT16: return v.getInt16(0, true);
    case GgufValueType.UINT32: return v.getUint32(0, true);
    case GgufValueType.INT32: return v.getInt32(0, true);
    case GgufValueType.FLOAT32: return v.getFloat32(0, true);
    case GgufValueType.FLOAT64: return v.getFloat64(0, true);
    case GgufValueType.BOOL: return v.getInt8(0) !== 0;
    case GgufValueType.UINT64:
    case GgufValueType.INT64: {
      const b = type === GgufValueType.UINT64 ? v.getBigUint64(0, true) : v.getBigInt64(0, true);
      return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
    }
  }
}

function readValue(c: Cursor, key: string): GgufValue {
  const typeAt = c.pos;
  const type = c.u32(`type of ${key}`);
  if (type === GgufValueType.ARRAY) {
    const itemAt = c.pos;
    const itemType = c.u32(`item type of ${key}`);
    if (!isScalarType(itemType)) throw c.err(`key '${key}' has invalid array item type ${itemType}`, itemAt);
    const countAt = c.pos;
    const count = c.u64(`length of ${key}`);
    // Every item takes at least its fixed size (8 bytes for a string's length).
    const minItem = ggufScalarSize(itemType) ?? 8;
    if (count * BigInt(minItem) > BigInt(c.remaining)) {
      throw c.err(`key '${key}': array of ${count} items cannot fit in the ${c.remaining} bytes left`, countAt);
    }
    const items: (number | bigint | boolean | string)[] = new Array(Number(count));
    for (let i = 0; i < items.length; i++) items[i] = readScalar(c, itemType, `${key}[${i}]`);
    return { type: GgufValueType.ARRAY, itemType, value: items } as GgufValue;
  }
  if (!isScalarType(type)) throw c.err(`key '${key}' has invalid GGUF type ${type}`, typeAt);
  return { type, value: readScalar(c, type, key) } as GgufValue;
}

/** Parse and validate everything up to the tensor data (which is only bounds-checked). */
export function parseGguf(src: ByteSource, path = ''): GgufFile {
  const c = new Cursor(src);
  if (src.size < 4) throw c.err(`not a GGUF file: only ${src.size} bytes`, 0);
  const magic = c.take(4, 'magic');
  const magicStr = String.fromCharCode(magic.getUint8(0), magic.getUint8(1), magic.getUint8(2), magic.getUint8(3));
  if (magicStr !== 'GGUF') throw c.err(`not a GGUF file: bad magic ${JSON.stringify(magicStr)}, expected "GGUF"`, 0);
  const version = c.u32('version');
  if ((version & 0xffff) === 0) throw c.err(`unsupported GGUF version ${version} (byte order mismatch?)`, 4);
  if (version < 2 || version > 3) throw c.err(`unsupported GGUF version ${version}, expected 2 or 3`, 4);
  const nTensorsBig = c.i64('tensor count');
  const nKvBig = c.i64('KV count');
  // Each tensor info takes >= 33 bytes and each KV >= 13, so larger counts cannot be real.
  if (nTensorsBig < 0n || nTensorsBig * 33n > BigInt(c.remaining)) throw c.err(`tensor count ${nTensorsBig} is impossible: the ${c.remaining} bytes left cannot hold that many (truncated or corrupt)`, 8);
  if (nKvBig < 0n || nKvBig * 13n > BigInt(c.remaining)) throw c.err(`KV count ${nKvBig} is impossible: the ${c.remaining} bytes left cannot hold that many (truncated or corrupt)`, 16);
  const nTensors = Number(nTensorsBig);
  const nKv = Number(nKvBig);

  const kv = new Map<string, GgufValue>();
  for (let i = 0; i < nKv; i++) {
    const at = c.pos;
    const key = c.str(`key ${i}`);
    if (key.length === 0) throw c.err(`key ${i} is empty`, at);
    if (kv.has(key)) throw c.err(`duplicate key '${key}'`, at);
    kv.set(key, readValue(c, key));
  }

  let alignment = GGUF_DEFAULT_ALIGNMENT;
  const alignKv = kv.get(GGUF_KEY_ALIGNMENT);
  if (alignKv) {
    if (alignKv.type !== GgufValueType.UINT32) throw c.err(`${GGUF_KEY_ALIGNMENT} must be UINT32, got ${GgufValueType[alignKv.type]}`);
    alignment = alignKv.value;
    if (alignment === 0 || (alignment & (alignment - 1)) !== 0) throw c.err(`${GGUF_KEY_ALIGNMENT} = ${alignment} is not a power of 2`);
  }

  const infos: GgufTensorInfo[] = [];
  const tensors = new Map<string, GgufTensorInfo>();
  for (let i = 0; i < nTensors; i++) {
    const at = c.pos;
    const name = c.str(`tensor ${i} name`);
    if (new TextEncoder().encode(name).length >= GGML_MAX_NAME) throw c.err(`tensor name '${name}' is too long (ggml max ${GGML_MAX_NAME - 1} bytes)`, at);
    if (tensors.has(name)) throw c.err(`duplicate tensor '${name}'`, at);
    const nDims = c.u32(`n_dims of ${name}`);
    if (nDims > GGML_MAX_DIMS) throw c.err(`tensor '${name}' has ${nDims} dimensions (max ${GGML_MAX_DIMS})`, c.pos - 4);
    const ne: number[] = [];
    for (let j = 0; j < nDims; j++) {
      const dAt = c.pos;
      const d = c.i64(`ne[${j}] of ${name}`);
      if (d < 0n) throw c.err(`tensor '${name}' dimension ${j} is negative (${d})`, dAt);
      ne.push(c.safe(d, `tensor '${name}' ne[${j}]`, dAt));
    }
    if (elementCount(ne) > Number.MAX_SAFE_INTEGER) throw c.err(`tensor '${name}' shape [${ne}] has too many elements`, at);
    const typeAt = c.pos;
    const type = c.i32(`type of ${name}`);
    const info = ggmlTypeInfo(type);
    if (!info) throw c.err(`tensor '${name}' has invalid ggml type ${type}`, typeAt);
    const ne0 = ne.length > 0 ? ne[0] : 1;
    if (ne0 % info.blockSize !== 0) throw c.err(`tensor '${name}' of type ${info.name} has ne0 = ${ne0}, not a multiple of block size ${info.blockSize}`, typeAt);
    const offAt = c.pos;
    const offset = c.safe(c.u64(`offset of ${name}`), `tensor '${name}' offset`, offAt);
    const byteSize = (elementCount(ne) / info.blockSize) * info.typeSize;
    const t: GgufTensorInfo = { name, ne, type: type as GgmlType, offset, byteSize };
    infos.push(t);
    tensors.set(name, t);
  }

  const dataOffset = nTensors > 0 ? alignUp(c.pos, alignment) : c.pos;
  if (nTensors > 0 && dataOffset > src.size) throw c.err(`truncated: tensor data section would start at ${dataOffset}, file has ${src.size} bytes`, c.pos);
  // gguf.cpp requires tensors packed in order, each padded to the alignment.
  let expected = 0;
  for (const t of infos) {
    if (t.offset !== expected) throw c.err(`tensor '${t.name}' has data offset ${t.offset}, expected ${expected}`);
    const end = dataOffset + t.offset + t.byteSize;
    if (end > src.size) throw c.err(`tensor '${t.name}' data [${dataOffset + t.offset}, ${end}) extends past end of file (${src.size} bytes)`);
    expected += alignUp(t.byteSize, alignment);
  }
  return { path, fileSize: src.size, version, alignment, kv, tensors, dataOffset };
}

/** Read and validate a GGUF file's metadata (tensor data is read on demand). */
export function readGguf(path: string): GgufFile {
  const src = new FileSource(path);
  try {
    return parseGguf(src, path);
  } finally {
    src.close();
  }
}

export function parseGgufBytes(bytes: Uint8Array): GgufFile {
  return parseGguf(new MemorySource(bytes));
}

function tensorInfo(file: GgufFile, name: string): GgufTensorInfo {
  const t = file.tensors.get(name);
  if (!t) throw new Error(`${file.path || 'GGUF'}: no tensor '${name}'`);
  return t;
}

/** Raw bytes of a tensor as stored. */
export function readTensorBytes(file: GgufFile, name: string): Uint8Array {
  const t = tensorInfo(file, name);
  const src = new FileSource(file.path);
  try {
    return src.read(file.dataOffset + t.offset, t.byteSize).slice();
  } finally {
    src.close();
  }
}

/** Tensor values dequantized to float32, ggml memory order. */
export function readTensorF32(file: GgufFile, name: string): Float32Array {
  const t = tensorInfo(file, name);
  return dequantize(t.type, readTensorBytes(file, name), elementCount(t.ne));
}

/** Tensor values in float64 (exact widening of the stored/dequantized values). */
export function readTensorF64(file: GgufFile, name: string): Float64Array {
  const t = tensorInfo(file, name);
  const bytes = readTensorBytes(file, name);
  if (t.type === GgmlType.F64) return new Float64Array(bytes.buffer, bytes.byteOffset, elementCount(t.ne));
  return Float64Array.from(dequantize(t.type, bytes, elementCount(t.ne)));
}
