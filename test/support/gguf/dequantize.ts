// ggml block encodings → float32, following dequantize_row_* in ggml-quants.c
// (products are done in float32 like the C code, so results match ggml exactly).
import { F16_TABLE, bf16BitsToF32 } from './half.js';
import { GgmlType, ggmlTypeInfo } from './types.js';

const fr = Math.fround;

function blocks(bytes: Uint8Array, n: number, qk: number, size: number, what: string): number {
  if (n % qk !== 0) throw new Error(`${what}: ${n} values is not a multiple of ${qk}`);
  const nb = n / qk;
  if (bytes.length < nb * size) throw new Error(`${what}: need ${nb * size} bytes, have ${bytes.length}`);
  return nb;
}

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

export function dequantizeF32(bytes: Uint8Array, n: number): Float32Array {
  blocks(bytes, n, 1, 4, 'F32');
  const out = new Float32Array(n);
  new Uint8Array(out.buffer).set(bytes.subarray(0, n * 4));
  return out;
}

export function dequantizeF16(bytes: Uint8Array, n: number): Float32Array {
  blocks(bytes, n, 1, 2, 'F16');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = F16_TABLE[dv.getUint16(2 * i, true)];
  return out;
}

export function dequantizeBF16(bytes: Uint8Array, n: number): Float32Array {
  blocks(bytes, n, 1, 2, 'BF16');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = bf16BitsToF32(dv.getUint16(2 * i, true));
  return out;
}

export function dequantizeF64(bytes: Uint8Array, n: number): Float32Array {
  blocks(bytes, n, 1, 8, 'F64');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.getFloat64(8 * i, true);
  return out;
}

function dequantizeInt(bytes: Uint8Array, n: number, width: 1 | 2 | 4): Float32Array {
  blocks(bytes, n, 1, width, `I${width * 8}`);
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = width === 1 ? dv.getInt8(i) : width === 2 ? dv.getInt16(2 * i, true) : dv.getInt32(4 * i, true);
  }
  return out;
}

export function dequantizeQ8_0(bytes: Uint8Array, n: number): Float32Array {
  const nb = blocks(bytes, n, 32, 34, 'Q8_0');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < nb; i++) {
    const o = i * 34;
    const d = F16_TABLE[dv.getUint16(o, true)];
    for (let j = 0; j < 32; j++) out[i * 32 + j] = dv.getInt8(o + 2 + j) * d;
  }
  return out;
}

export function dequantizeQ4_0(bytes: Uint8Array, n: number): Float32Array {
  const nb = blocks(bytes, n, 32, 18, 'Q4_0');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < nb; i++) {
    const o = i * 18;
    const d = F16_TABLE[dv.getUint16(o, true)];
    for (let j = 0; j < 16; j++) {
      const b = bytes[o + 2 + j];
      out[i * 32 + j] = ((b & 0xf) - 8) * d;
      out[i * 32 + j + 16] = ((b >> 4) - 8) * d;
    }
  }
  return out;
}

export function dequantizeQ4_1(bytes: Uint8Array, n: number): Float32Array {
  const nb = blocks(bytes, n, 32, 20, 'Q4_1');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < nb; i++) {
    const o = i * 20;
    const d = F16_TABLE[dv.getUint16(o, true)];
    const m = F16_TABLE[dv.getUint16(o + 2, true)];
    for (let j = 0; j < 16; j++) {
      const b = bytes[o + 4 + j];
      out[i * 32 + j] = fr((b & 0xf) * d) + m;
      out[i * 32 + j + 16] = fr((b >> 4) * d) + m;
    }
  }
  return out;
}

function dequantizeQ5(bytes: Uint8Array, n: number, withMin: boolean): Float32Array {
  const size = withMin ? 24 : 22;
  const nb = blocks(bytes, n, 32, size, withMin ? 'Q5_1' : 'Q5_0');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < nb; i++) {
    const o = i * size;
    const d = F16_TABLE[dv.getUint16(o, true)];
    const m = withMin ? F16_TABLE[dv.getUint16(o + 2, true)] : 0;
    const hOff = withMin ? 4 : 2;
    const qh = dv.getUint32(o + hOff, true);
    for (let j = 0; j < 16; j++) {
      const b = bytes[o + hOff + 4 + j];
      const x0 = (b & 0xf) | (((qh >>> j) << 4) & 0x10);
      const x1 = (b >> 4) | ((qh >>> (j + 12)) & 0x10);
      out[i * 32 + j] = withMin ? fr(x0 * d) + m : (x0 - 16) * d;
      out[i * 32 + j + 16] = withMin ? fr(x1 * d) + m : (x1 - 16) * d;
    }
  }
  return out;
}

/** get_scale_min_k4: 6-bit scale and min j (0..7) from the 12 packed bytes at `o`. */
function scaleMinK4(bytes: Uint8Array, o: number, j: number): [number, number] {
  if (j < 4) return [bytes[o + j] & 63, bytes[o + j + 4] & 63];
  return [
    (bytes[o + j + 4] & 0xf) | ((bytes[o + j - 4] >> 6) << 4),
    (bytes[o + j + 4] >> 4) | ((bytes[o + j] >> 6) << 4),
  ];
}

export function dequantizeQ4_K(bytes: Uint8Array, n: number): Float32Array {
  return dequantizeKAffine(bytes, n, false);
}

export function dequantizeQ5_K(bytes: Uint8Array, n: number): Float32Array {
  return dequantizeKAffine(bytes, n, true);
}

function dequantizeKAffine(bytes: Uint8Array, n: number, five: boolean): Float32Array {
  const size = five ? 176 : 144;
  const nb = blocks(bytes, n, 256, size, five ? 'Q5_K' : 'Q4_K');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < nb; i++) {
    const o = i * size;
    const d = F16_TABLE[dv.getUint16(o, true)];
    const dmin = F16_TABLE[dv.getUint16(o + 2, true)];
    const qh = o + 16;
    const qs = five ? o + 48 : o + 16;
    let y = i * 256;
    for (let c = 0; c < 4; c++) {
      const [sc1, m1] = scaleMinK4(bytes, o + 4, 2 * c);
      const [sc2, m2] = scaleMinK4(bytes, o + 4, 2 * c + 1);
      const d1 = fr(d * sc1), mm1 = fr(dmin * m1);
      const d2 = fr(d * sc2), mm2 = fr(dmin * m2);
      const u1 = 1 << (2 * c), u2 = 2 << (2 * c);
      for (let l = 0; l < 32; l++) {
        const hi = five && (bytes[qh + l] & u1) !== 0 ? 16 : 0;
        out[y++] = fr(d1 * ((bytes[qs + 32 * c + l] & 0xf) + hi)) - mm1;
      }
      for (let l = 0; l < 32; l++) {
        const hi = five && (bytes[qh + l] & u2) !== 0 ? 16 : 0;
        out[y++] = fr(d2 * ((bytes[qs + 32 * c + l] >> 4) + hi)) - mm2;
      }
    }
  }
  return out;
}

export function dequantizeQ6_K(bytes: Uint8Array, n: number): Float32Array {
  const nb = blocks(bytes, n, 256, 210, 'Q6_K');
  const dv = view(bytes);
  const out = new Float32Array(n);
  for (let i = 0; i < nb; i++) {
    const o = i * 210;
    const d = F16_TABLE[dv.getUint16(o + 208, true)];
    for (let h = 0; h < 2; h++) {
      const ql = o + 64 * h;
      const qh = o + 128 + 32 * h;
      const sc = o + 192 + 8 * h;
      const y = i * 256 + 128 * h;
      for (let l = 0; l < 32; l++) {
        const is = l >> 4;
        const q1 = ((bytes[ql + l] & 0xf) | (((bytes[qh + l] >> 0) & 3) << 4)) - 32;
        const q2 = ((bytes[ql + l + 32] & 0xf) | (((bytes[qh + l] >> 2) & 3) << 4)) - 32;
        const q3 = ((bytes[ql + l] >> 4) | (((bytes[qh + l] >> 4) & 3) << 4)) - 32;
        const q4 = ((bytes[ql + l + 32] >> 4) | (((bytes[qh + l] >> 6) & 3) << 4)) - 32;
        out[y + l] = fr(d * dv.getInt8(sc + is)) * q1;
        out[y + l + 32] = fr(d * dv.getInt8(sc + is + 2)) * q2;
        out[y + l + 64] = fr(d * dv.getInt8(sc + is + 4)) * q3;
        out[y + l + 96] = fr(d * dv.getInt8(sc + is + 6)) * q4;
      }
    }
  }
  return out;
}

/** Types `dequantize` can decode. */
export const DEQUANTIZABLE_TYPES: readonly GgmlType[] = [
  GgmlType.F32, GgmlType.F16, GgmlType.BF16, GgmlType.F64,
  GgmlType.I8, GgmlType.I16, GgmlType.I32,
  GgmlType.Q8_0, GgmlType.Q4_0, GgmlType.Q4_1, GgmlType.Q5_0, GgmlType.Q5_1,
  GgmlType.Q4_K, GgmlType.Q5_K, GgmlType.Q6_K,
];

/** Decode `n` values of `type` from `bytes` (ggml memory order). */
export function dequantize(type: GgmlType, bytes: Uint8Array, n: number): Float32Array {
  switch (type) {
    case GgmlType.F32: return dequantizeF32(bytes, n);
    case GgmlType.F16: return dequantizeF16(bytes, n);
    case GgmlType.BF16: return dequantizeBF16(bytes, n);
    case GgmlType.F64: return dequantizeF64(bytes, n);
    case GgmlType.I8: return dequantizeInt(bytes, n, 1);
    case GgmlType.I16: return dequantizeInt(bytes, n, 2);
    case GgmlType.I32: return dequantizeInt(bytes, n, 4);
    case GgmlType.Q8_0: return dequantizeQ8_0(bytes, n);
    case GgmlType.Q4_0: return dequantizeQ4_0(bytes, n);
    case GgmlType.Q4_1: return dequantizeQ4_1(bytes, n);
    case GgmlType.Q5_0: return dequantizeQ5(bytes, n, false);
    case GgmlType.Q5_1: return dequantizeQ5(bytes, n, true);
    case GgmlType.Q4_K: return dequantizeQ4_K(bytes, n);
    case GgmlType.Q5_K: return dequantizeQ5_K(bytes, n);
    case GgmlType.Q6_K: return dequantizeQ6_K(bytes, n);
    default:
      throw new Error(`dequantize: ${ggmlTypeInfo(type)?.name ?? `type ${type}`} is not supported`);
  }
}
