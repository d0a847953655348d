// The .nemo importer's F16 and Q8_0 encoders (app/main/models/nemo/tensor-data.ts) write the same
// bytes as the test suite's bit-exact ports of ggml's reference quantizers (test/support/gguf), over
// values that reach every rounding path: half subnormals and overflow, exact ties, all-zero blocks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { xorshift32 } from '../../../app/engine-process/self-test.js';
import { encodeF16, encodeQ8_0, floatToHalf } from '../../../app/main/models/nemo/tensor-data.js';
import { quantizeF16, quantizeQ8_0 } from '../../support/gguf/quantize.js';
import { f32ToF16Bits } from '../../support/gguf/half.js';

/** Seeded values over many magnitudes (the same on every run). */
function values(count: number, seed: number): Float32Array {
  const next = xorshift32(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (next() - 0.5) * 2 ** Math.floor(next() * 60 - 40);
  return out;
}

/** Halfway between neighbouring halves (ties to even), subnormal halves, overflow, signed zeros. */
const edges = Float32Array.from([
  0, -0, 1, -1, 65504, 65520, -65520, 1e9, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -14, 2 ** -15 + 2 ** -25,
  1 + 2 ** -11, 1 + 3 * 2 ** -11, -(1 + 2 ** -11), 0.1, 1 / 3, Infinity, -Infinity, 5.960464477539063e-8, 6.1e-5,
  ...new Array<number>(32 * 2 - 22).fill(0),
]);

describe('the importer encodes as ggml does', () => {
  test('F16: every value rounds to the same half bits', () => {
    for (const x of [values(32 * 1024, 7), edges]) {
      assert.deepEqual(encodeF16(x), quantizeF16(x));
    }
    assert.equal(floatToHalf(Number.NaN) & 0x7e00, 0x7e00, 'NaN stays a quiet NaN');
    assert.equal(floatToHalf(1 + 2 ** -11), f32ToF16Bits(1 + 2 ** -11));
  });

  test('Q8_0: the same scales and quants, block by block', () => {
    const blocky = values(32 * 1024, 11);
    // Blocks whose largest value sits exactly on a quant's half-step, and an all-zero block.
    blocky.fill(0, 0, 32);
    for (let j = 0; j < 32; j++) blocky[32 + j] = (j - 16) * (127 / 16) * 0.5;
    for (const x of [blocky, edges.map((v) => (Number.isFinite(v) ? v : 0))]) {
      assert.deepEqual(encodeQ8_0(x), quantizeQ8_0(x));
    }
  });
});
