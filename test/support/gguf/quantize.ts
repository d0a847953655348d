// float32 → ggml block encodings. F16/BF16/Q8_0/Q4_0/Q5_0 reproduce ggml's
// reference quantizers (quantize_row_*_ref) bit for bit, doing each step in
// float32 (Math.fround) as the C code does. The K-quant encoders are simple
// min/max (not ggml's iterative search) but emit valid blocks; they exist so
// loader tests can build K-quant files.
import { f32ToBf16Bits, f32ToF16Bits, f16BitsToF32 } from './half.js';
import { GgmlType, ggmlTypeInfo } from './types.js';

export {
  dequantize,
  dequantizeBF16,
  dequantizeF16,
  dequantizeQ4_0,
  dequantizeQ4_K,
  dequantizeQ5_K,
  dequantizeQ6_K,
  dequantizeQ8_0,
} from './dequantize.js';

const fr = Math.fround;

/** C roundf: halves away from zero. */
function roundf(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

function checkBlocks(x: Float32Array, qk: number, what: string): number {
  if (x.length % qk !== 0) throw new Error(`${what}: ${x.length} values is not a multiple of ${qk}`);
  return x.length / qk;
}

export function quantizeF16(x: Float32Array): Uint8Array {
  const out = new Uint16Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = f32ToF16Bits(x[i]);
  return new Uint8Array(out.buffer);
}

export function quantizeBF16(x: Float32Array): Uint8Array {
  const out = new Uint16Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = f32ToBf16Bits(x[i]);
  return new Uint8Array(out.buffer);
}

/** block_q8_0: fp16 d = amax/127, 32 × int8 q = roundf(x/d). */
export function quantizeQ8_0(x: Float32Array): Uint8Array {
  const nb = checkBlocks(x, 32, 'Q8_0');
  const out = new Uint8Array(nb * 34);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < nb; i++) {
    const base = i * 32;
    let amax = 0;
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[base + j]));
    const d = fr(amax / 127);
    const id = d !== 0 ? fr(1 / d) : 0;
    const o = i * 34;
    dv.setUint16(o, f32ToF16Bits(d), true);
    for (let j = 0; j < 32; j++) dv.setInt8(o + 2 + j, roundf(fr(x[base + j] * id)));
  }
  return out;
}

/** Signed value of largest magnitude in a block (first one wins, as in ggml). */
function signedMax(x: Float32Array, base: number, n: number): number {
  let amax = 0;
  let max = 0;
  for (let j = 0; j < n; j++) {
    const v = x[base + j];
    if (amax < Math.abs(v)) {
      amax = Math.abs(v);
      max = v;
    }
  }
  return max;
}

/** block_q4_0: d = max/-8, q = min(15, trunc(x/d + 8.5)); element j low nibble, j+16 high nibble. */
export function quantizeQ4_0(x: Float32Array): Uint8Array {
  const nb = checkBlocks(x, 32, 'Q4_0');
  const out = new Uint8Array(nb * 18);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < nb; i++) {
    const base = i * 32;
    const d = fr(signedMax(x, base, 32) / -8);
    const id = d !== 0 ? fr(1 / d) : 0;
    const o = i * 18;
    dv.setUint16(o, f32ToF16Bits(d), true);
    for (let j = 0; j < 16; j++) {
      const q0 = Math.min(15, Math.trunc(fr(fr(x[base + j] * id) + 8.5)));
      const q1 = Math.min(15, Math.trunc(fr(fr(x[base + 16 + j] * id) + 8.5)));
      out[o + 2 + j] = q0 | (q1 << 4);
    }
  }
  return out;
}

/** block_q5_0: d = max/-16, 5-bit q; low nibbles as Q4_0, 5th bits in a uint32 qh. */
export function quantizeQ5_0(x: Float32Array): Uint8Array {
  const nb = checkBlocks(x, 32, 'Q5_0');
  const out = new Uint8Array(nb * 22);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < nb; i++) {
    const base = i * 32;
    const d = fr(signedMax(x, base, 32) / -16);
    const id = d !== 0 ? fr(1 / d) : 0;
    const o = i * 22;
    dv.setUint16(o, f32ToF16Bits(d), true);
    let qh = 0;
    for (let j = 0; j < 16; j++) {
      const q0 = Math.min(31, Math.trunc(fr(fr(x[base + j] * id) + 16.5)));
      const q1 = Math.min(31, Math.trunc(fr(fr(x[base + 16 + j] * id) + 16.5)));
      out[o + 6 + j] = (q0 & 0xf) | ((q1 & 0xf) << 4);
      qh |= ((q0 >> 4) & 1) << j;
      qh |= ((q1 >> 4) & 1) << (j + 16);
    }
    dv.setUint32(o + 2, qh >>> 0, true);
  }
  return out;
}

/** Pack 8 six-bit scales and mins as ggml's get_scale_min_k4 unpacks them. */
function packScalesK4(ls: readonly number[], lm: readonly number[], out: Uint8Array, o: number): void {
  for (let j = 0; j < 8; j++) {
    if (j < 4) {
      out[o + j] = ls[j];
      out[o + j + 4] = lm[j];
    } else {
      out[o + j + 4] = (ls[j] & 0xf) | ((lm[j] & 0xf) << 4);
      out[o + j - 4] |= (ls[j] >> 4) << 6;
      out[o + j] |= (lm[j] >> 4) << 6;
    }
  }
}

/**
 * Shared Q4_K/Q5_K encoder: 8 sub-blocks of 32 with x ≈ d·sc·q − dmin·m, q in
 * [0, levels]. Returns per super-block (d, dmin, scales, q[256]).
 */
function encodeKAffine(
  x: Float32Array,
  base: number,
  levels: number,
): { d: number; dmin: number; scales: Uint8Array; q: Uint8Array } {
  const scales = new Float64Array(8);
  const mins = new Float64Array(8);
  for (let j = 0; j < 8; j++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let l = 0; l < 32; l++) {
      const v = x[base + 32 * j + l];
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    lo = Math.min(lo, 0); // like ggml: the subtracted min is never negative
    scales[j] = (hi - lo) / levels;
    mins[j] = -lo;
  }
  const maxScale = Math.max(...scales);
  const maxMin = Math.max(...mins);
  const dBits = f32ToF16Bits(maxScale / 63);
  const dminBits = f32ToF16Bits(maxMin / 63);
  const d = f16BitsToF32(dBits);
  const dmin = f16BitsToF32(dminBits);
  const ls = [...scales].map((s) => (d > 0 ? Math.min(63, Math.round(s / d)) : 0));
  const lm = [...mins].map((m) => (dmin > 0 ? Math.min(63, Math.round(m / dmin)) : 0));
  const packed = new Uint8Array(12);
  packScalesK4(ls, lm, packed, 0);
  const q = new Uint8Array(256);
  for (let j = 0; j < 8; j++) {
    const sd = d * ls[j];
    const sm = dmin * lm[j];
    if (sd === 0) continue;
    for (let l = 0; l < 32; l++) {
      const v = Math.round((x[base + 32 * j + l] + sm) / sd);
      q[32 * j + l] = Math.max(0, Math.min(levels, v));
    }
  }
  return { d: dBits, dmin: dminBits, scales: packed, q };
}

/** block_q4_K: d, dmin, 12 scale bytes, 128 nibble bytes (64-element chunks: low then high nibbles). */
export function quantizeQ4_K(x: Float32Array): Uint8Array {
  const nb = checkBlocks(x, 256, 'Q4_K');
  const size = 144;
  const out = new Uint8Array(nb * size);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < nb; i++) {
    const o = i * size;
    const { d, dmin, scales, q } = encodeKAffine(x, i * 256, 15);
    dv.setUint16(o, d, true);
    dv.setUint16(o + 2, dmin, true);
    out.set(scales, o + 4);
    for (let c = 0; c < 4; c++) {
      for (let l = 0; l < 32; l++) out[o + 16 + 32 * c + l] = q[64 * c + l] | (q[64 * c + 32 + l] << 4);
    }
  }
  return out;
}

/** block_q5_K: as Q4_K plus qh[32] holding the 5th bits (bit 2c / 2c+1 for chunk c). */
export function quantizeQ5_K(x: Float32Array): Uint8Array {
  const nb = checkBlocks(x, 256, 'Q5_K');
  const size = 176;
  const out = new Uint8Array(nb * size);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < nb; i++) {
    const o = i * size;
    const { d, dmin, scales, q } = encodeKAffine(x, i * 256, 31);
    dv.setUint16(o, d, true);
    dv.setUint16(o + 2, dmin, true);
    out.set(scales, o + 4);
    const qh = o + 16;
    const qs = o + 48;
    for (let c = 0; c < 4; c++) {
      for (let l = 0; l < 32; l++) {
        const a = q[64 * c + l];
        const b = q[64 * c + 32 + l];
        out[qs + 32 * c + l] = (a & 0xf) | ((b & 0xf) << 4);
        out[qh + l] |= ((a >> 4) << (2 * c)) | ((b >> 4) << (2 * c + 1));
      }
    }
  }
  return out;
}

/** block_q6_K: ql[128], qh[64], int8 scales[16], fp16 d; x = d·sc·(q − 32). */
export function quantizeQ6_K(x: Float32Array): Uint8Array {
  const nb = checkBlocks(x, 256, 'Q6_K');
  const size = 210;
  const out = new Uint8Array(nb * size);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < nb; i++) {
    const base = i * 256;
    const o = i * size;
    const sub = new Float64Array(16);
    for (let j = 0; j < 16; j++) {
      let amax = 0;
      for (let l = 0; l < 16; l++) amax = Math.max(amax, Math.abs(x[base + 16 * j + l]));
      sub[j] = amax / 31;
    }
    const dBits = f32ToF16Bits(Math.max(...sub) / 127);
    const d = f16BitsToF32(dBits);
    dv.setUint16(o + 208, dBits, true);
    const L = new Uint8Array(256).fill(32);
    for (let j = 0; j < 16; j++) {
      const sc = d > 0 ? Math.min(127, Math.round(sub[j] / d)) : 0;
      dv.setInt8(o + 192 + j, sc);
      if (sc === 0) continue;
      for (let l = 0; l < 16; l++) {
        const v = Math.round(x[base + 16 * j + l] / (d * sc));
        L[16 * j + l] = Math.max(-32, Math.min(31, v)) + 32;
      }
    }
    for (let h = 0; h < 2; h++) {
      const ql = o + 64 * h;
      const qh = o + 128 + 32 * h;
      const Lb = 128 * h;
      for (let l = 0; l < 32; l++) {
        out[ql + l] = (L[Lb + l] & 0xf) | ((L[Lb + l + 64] & 0xf) << 4);
        out[ql + l + 32] = (L[Lb + l + 32] & 0xf) | ((L[Lb + l + 96] & 0xf) << 4);
        out[qh + l] =
          (L[Lb + l] >> 4) | ((L[Lb + l + 32] >> 4) << 2) | ((L[Lb + l + 64] >> 4) << 4) | ((L[Lb + l + 96] >> 4) << 6);
      }
    }
  }
  return out;
}

export function float32Bytes(x: Float32Array): Uint8Array {
  return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
}

/** Types `quantize` can encode. */
export const QUANTIZABLE_TYPES: readonly GgmlType[] = [
  GgmlType.F32,
  GgmlType.F16,
  GgmlType.BF16,
  GgmlType.Q8_0,
  GgmlType.Q4_0,
  GgmlType.Q5_0,
  GgmlType.Q4_K,
  GgmlType.Q5_K,
  GgmlType.Q6_K,
];

/** Encode float32 values (ggml memory order) as `type`. */
export function quantize(type: GgmlType, x: Float32Array): Uint8Array {
  switch (type) {
    case GgmlType.F32: return float32Bytes(x);
    case GgmlType.F16: return quantizeF16(x);
    case GgmlType.BF16: return quantizeBF16(x);
    case GgmlType.Q8_0: return quantizeQ8_0(x);
    case GgmlType.Q4_0: return quantizeQ4_0(x);
    case GgmlType.Q5_0: return quantizeQ5_0(x);
    case GgmlType.Q4_K: return quantizeQ4_K(x);
    case GgmlType.Q5_K: return quantizeQ5_K(x);
    case GgmlType.Q6_K: return quantizeQ6_K(x);
    default:
      throw new Error(`quantize: ${ggmlTypeInfo(type)?.name ?? type} is not supported`);
  }
}
