// IEEE binary16 and bfloat16 conversions with the rounding ggml uses:
// fp32→fp16 round-to-nearest-even with subnormals, overflow to ±inf and NaN kept
// NaN (as F16C / ggml_compute_fp32_to_fp16); fp32→bf16 as ggml_compute_fp32_to_bf16.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function f32Bits(x: number): number {
  f32[0] = x;
  return u32[0];
}

export function bitsF32(b: number): number {
  u32[0] = b >>> 0;
  return f32[0];
}

// fp32 → fp16 lives in app/shared (the Silero VAD converter writes F16 with it); its tests stay here.
export { f32ToF16Bits } from '../../../app/shared/half.js';

function computeF16(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m !== 0 ? NaN : sign * Infinity;
  return sign * (1024 + m) * 2 ** (e - 25);
}

/** All 65536 half values, so bulk dequantization is a table lookup. */
export const F16_TABLE: Float32Array = (() => {
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) t[h] = computeF16(h);
  return t;
})();

export function f16BitsToF32(h: number): number {
  return F16_TABLE[h & 0xffff];
}

export function f32ToBf16Bits(x: number): number {
  const b = f32Bits(x);
  if ((b & 0x7fffffff) > 0x7f800000) return ((b >>> 16) | 64) & 0xffff;
  return ((b + (0x7fff + ((b >>> 16) & 1))) >>> 16) & 0xffff;
}

export function bf16BitsToF32(h: number): number {
  return bitsF32((h & 0xffff) << 16);
}
