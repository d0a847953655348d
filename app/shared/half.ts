// IEEE binary16 from float32 with ggml's rounding (ggml_compute_fp32_to_fp16, F16C): round to nearest even,
// subnormals, overflow to ±inf, NaN kept NaN. Tested in test/unit/gguf/quantize.test.ts.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Round x to float32 first (as C would hold it), then to binary16 bits. */
export function f32ToF16Bits(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  const mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 | (mant >>> 13) : 0);
  const e = exp - 127 + 15; // biased half exponent
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Result is a half subnormal (or zero): shift the 24-bit significand into place.
    if (e < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - e;
    let r = m >>> shift;
    const rem = m & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rem > halfway || (rem === halfway && (r & 1) !== 0)) r += 1;
    return sign | r;
  }
  let r = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to inf).
  if (rem > 0x1000 || (rem === 0x1000 && (r & 1) !== 0)) r += 1;
  return sign | r;
}

