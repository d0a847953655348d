// Little-endian serialization of GGUF primitives into a growable buffer. The writer
// uses the checked methods; malformed-file builders use the same class to emit
// deliberately wrong bytes (raw type ids, lying lengths, bad counts).
import { type GgufScalarType, type GgufValue, GgufValueType } from './types.js';

const utf8 = new TextEncoder();

const INT_RANGES: Partial<Record<GgufValueType, readonly [number, number]>> = {
  [GgufValueType.UINT8]: [0, 0xff],
  [GgufValueType.INT8]: [-0x80, 0x7f],
  [GgufValueType.UINT16]: [0, 0xffff],
  [GgufValueType.INT16]: [-0x8000, 0x7fff],
  [GgufValueType.UINT32]: [0, 0xffffffff],
  [GgufValueType.INT32]: [-0x80000000, 0x7fffffff],
};

export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  private len = 0;

  // Callers must take the offset from reserve() before touching this.buf/view:
  // reserve() may replace both.
  constructor(initialCapacity = 4096) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.len;
  }

  private reserve(n: number): number {
    const at = this.len;
    if (at + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, at + n));
      next.set(this.buf.subarray(0, at));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    this.len += n;
    return at;
  }

  u8(v: number): this { const at = this.reserve(1); this.view.setUint8(at, v); return this; }
  i8(v: number): this { const at = this.reserve(1); this.view.setInt8(at, v); return this; }
  u16(v: number): this { const at = this.reserve(2); this.view.setUint16(at, v, true); return this; }
  i16(v: number): this { const at = this.reserve(2); this.view.setInt16(at, v, true); return this; }
  u32(v: number): this { const at = this.reserve(4); this.view.setUint32(at, v, true); return this; }
  i32(v: number): this { const at = this.reserve(4); this.view.setInt32(at, v, true); return this; }
  f32(v: number): this { const at = this.reserve(4); this.view.setFloat32(at, v, true); return this; }
  f64(v: number): this { const at = this.reserve(8); this.view.setFloat64(at, v, true); return this; }
  u64(v: number | bigint): this { const at = this.reserve(8); this.view.setBigUint64(at, BigInt(v), true); return this; }
  i64(v: number | bigint): this { const at = this.reserve(8); this.view.setBigInt64(at, BigInt(v), true); return this; }

  bytes(b: Uint8Array): this {
    const at = this.reserve(b.length);
    this.buf.set(b, at);
    return this;
  }

  zeros(n: number): this {
    const at = this.reserve(n);
    this.buf.fill(0, at, this.len);
    return this;
  }

  /** GGUF string: uint64 byte length, then UTF-8 bytes without a terminator. */
  str(s: string): this {
    const b = utf8.encode(s);
    return this.u64(b.length).bytes(b);
  }

  /** Overwrite a uint64 at an earlier position (used to patch offsets/counts). */
  patchU64(at: number, v: number | bigint): this {
    this.view.setBigUint64(at, BigInt(v), true);
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function checkInt(type: GgufValueType, v: number): void {
  const range = INT_RANGES[type];
  if (range && (!Number.isInteger(v) || v < range[0] || v > range[1])) {
    throw new RangeError(`${v} does not fit GGUF type ${GgufValueType[type]}`);
  }
}

function check64(type: GgufValueType, v: number | bigint): void {
  const b = typeof v === 'bigint' ? v : Number.isInteger(v) ? BigInt(v) : undefined;
  const ok =
    b !== undefined &&
    (type === GgufValueType.UINT64 ? b >= 0n && b < 1n << 64n : b >= -(1n << 63n) && b < 1n << 63n);
  if (!ok) throw new RangeError(`${v} does not fit GGUF type ${GgufValueType[type]}`);
}

/** Append one scalar of `type` (no type tag), validating its range. */
export function writeScalar(w: ByteWriter, type: GgufScalarType, v: number | bigint | boolean | string): void {
  switch (type) {
    case GgufValueType.UINT8: checkInt(type, v as number); w.u8(v as number); return;
    case GgufValueType.INT8: checkInt(type, v as number); w.i8(v as number); return;
    case GgufValueType.UINT16: checkInt(type, v as number); w.u16(v as number); return;
    case GgufValueType.INT16: checkInt(type, v as number); w.i16(v as number); return;
    case GgufValueType.UINT32: checkInt(type, v as number); w.u32(v as number); return;
    case GgufValueType.INT32: checkInt(type, v as number); w.i32(v as number); return;
    case GgufValueType.FLOAT32: w.f32(v as number); return;
    case GgufValueType.FLOAT64: w.f64(v as number); return;
    case GgufValueType.UINT64: check64(type, v as number | bigint); w.u64(v as number | bigint); return;
    case GgufValueType.INT64: check64(type, v as number | bigint); w.i64(v as number | bigint); return;
    // gguf.cpp reads a bool as int8 and tests != 0; the Python writer emits 0/1.
    case GgufValueType.BOOL: w.u8(v ? 1 : 0); return;
    case GgufValueType.STRING: w.str(v as string); return;
  }
}

/** Append a value with its type tag (and for arrays the item type and count). */
export function writeValue(w: ByteWriter, value: GgufValue): void {
  w.u32(value.type);
  if (value.type === GgufValueType.ARRAY) {
    w.u32(value.itemType).u64(value.value.length);
    for (const item of value.value) writeScalar(w, value.itemType, item);
  } else {
    writeScalar(w, value.type, value.value);
  }
}

/** Append a whole KV pair: key string, then the typed value. */
export function writeKv(w: ByteWriter, key: string, value: GgufValue): void {
  w.str(key);
  writeValue(w, value);
}
