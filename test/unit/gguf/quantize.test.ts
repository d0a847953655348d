import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { dequantize } from '../../support/gguf/dequantize.js';
import { F16_TABLE, bf16BitsToF32, f16BitsToF32, f32ToBf16Bits, f32ToF16Bits } from '../../support/gguf/half.js';
import { quantize, quantizeQ4_0, quantizeQ8_0 } from '../../support/gguf/quantize.js';
import { GgmlType } from '../../support/gguf/types.js';
import { Rng } from '../../support/model/rng.js';
import { goldenInput } from './fixtures/golden-input.js';

interface Golden {
  readonly bytes: string;
  readonly dequantized: string;
}
const golden = JSON.parse(readFileSync(new URL('./fixtures/ggml-golden.json', import.meta.url), 'utf8')) as Record<string, Golden>;
const fromHex = (h: string) => Uint8Array.from(Buffer.from(h, 'hex'));
const asF32 = (h: string) => new Float32Array(fromHex(h).buffer);
const hexOf = (b: Uint8Array) => Buffer.from(b).toString('hex');

function randomBlocks(n: number, seed: number, scale = 1): Float32Array {
  const x = new Float32Array(n);
  new Rng(seed, 'quant').fillUniform(x, -scale, scale);
  return x;
}

describe('fp16 / bf16', () => {
  test('every finite half value survives f16 → f32 → f16 exactly', () => {
    for (let h = 0; h < 65536; h++) {
      const v = f16BitsToF32(h);
      if (Number.isNaN(v)) continue;
      assert.equal(f32ToF16Bits(v), h, `0x${h.toString(16)}`);
    }
  });

  test('round to nearest even, subnormals, overflow and NaN', () => {
    assert.equal(f32ToF16Bits(1 + 2 ** -11), 0x3c00); // tie → even (down)
    assert.equal(f32ToF16Bits(1 + 3 * 2 ** -11), 0x3c02); // tie → even (up)
    assert.equal(f32ToF16Bits(1 + 2 ** -11 + 2 ** -20), 0x3c01); // above the tie
    assert.equal(f32ToF16Bits(2 ** -24), 0x0001); // smallest subnormal
    assert.equal(f32ToF16Bits(2 ** -25), 0x0000); // tie with 0 → even
    assert.equal(f32ToF16Bits(1.5 * 2 ** -25), 0x0001);
    assert.equal(f32ToF16Bits(-(2 ** -14)), 0x8400); // smallest normal, negative
    assert.equal(f32ToF16Bits(2 ** -14 - 2 ** -24), 0x03ff); // largest subnormal
    assert.equal(f32ToF16Bits(65504), 0x7bff);
    assert.equal(f32ToF16Bits(65520), 0x7c00); // rounds up to inf
    assert.equal(f32ToF16Bits(-Infinity), 0xfc00);
    assert.equal(f32ToF16Bits(-0), 0x8000);
    assert.ok(Number.isNaN(f16BitsToF32(f32ToF16Bits(NaN))));
    assert.equal(F16_TABLE[0x3555], 0.333251953125);
  });

  test('bf16 rounds to nearest even and keeps NaN', () => {
    assert.equal(f32ToBf16Bits(1), 0x3f80);
    assert.equal(bf16BitsToF32(f32ToBf16Bits(1 + 2 ** -8)), 1); // tie → even
    assert.equal(bf16BitsToF32(f32ToBf16Bits(1 + 3 * 2 ** -8)), 1 + 2 ** -6);
    assert.ok(Number.isNaN(bf16BitsToF32(f32ToBf16Bits(NaN))));
  });
});

describe('quantizers match ggml bit for bit (golden vectors from ggml)', () => {
  const x = goldenInput();
  for (const [name, type] of [['F16', GgmlType.F16], ['BF16', GgmlType.BF16], ['Q8_0', GgmlType.Q8_0], ['Q4_0', GgmlType.Q4_0], ['Q5_0', GgmlType.Q5_0]] as const) {
    test(`${name}: bytes and dequantized values`, () => {
      const bytes = quantize(type, x);
      assert.equal(hexOf(bytes), golden[name].bytes);
      assert.deepEqual(dequantize(type, bytes, x.length), asF32(golden[name].dequantized));
    });
  }
  for (const [name, type] of [['Q4_K', GgmlType.Q4_K], ['Q5_K', GgmlType.Q5_K], ['Q6_K', GgmlType.Q6_K]] as const) {
    test(`${name}: dequantizing ggml's blocks`, () => {
      assert.deepEqual(dequantize(type, fromHex(golden[name].bytes), x.length), asF32(golden[name].dequantized));
    });
  }
});

describe('quantization error bounds', () => {
  test('Q8_0: |x − x̂| ≤ d/2 per block (+ the fp16 rounding of d)', () => {
    const x = randomBlocks(32 * 200, 1, 3);
    const q = quantizeQ8_0(x);
    const y = dequantize(GgmlType.Q8_0, q, x.length);
    const dv = new DataView(q.buffer);
    for (let b = 0; b < 200; b++) {
      let amax = 0;
      for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[b * 32 + j]));
      const d = Math.fround(amax / 127);
      const d16 = f16BitsToF32(dv.getUint16(b * 34, true));
      const bound = d / 2 + 127 * Math.abs(d16 - d) + 1e-7;
      for (let j = 0; j < 32; j++) assert.ok(Math.abs(x[b * 32 + j] - y[b * 32 + j]) <= bound, `block ${b}`);
    }
  });

  test('Q4_0: error ≤ |d|/2, except the value opposite the signed max (clamped, ≤ |d|)', () => {
    const x = randomBlocks(32 * 200, 2, 0.5);
    const q = quantizeQ4_0(x);
    const y = dequantize(GgmlType.Q4_0, q, x.length);
    const dv = new DataView(q.buffer);
    for (let b = 0; b < 200; b++) {
      const d = Math.abs(f16BitsToF32(dv.getUint16(b * 18, true)));
      for (let j = 0; j < 32; j++) {
        const err = Math.abs(x[b * 32 + j] - y[b * 32 + j]);
        assert.ok(err <= d * 1.001 + 1e-7, `block ${b}`);
        if (Math.abs(x[b * 32 + j]) < 7 * d) assert.ok(err <= d / 2 * 1.01 + 1e-7, `block ${b} elem ${j}`);
      }
    }
  });

  test('F16 is exact for representable values; K-quants stay close', () => {
    const exact = Float32Array.from({ length: 64 }, (_, i) => (i - 32) / 8);
    assert.deepEqual(dequantize(GgmlType.F16, quantize(GgmlType.F16, exact), 64), exact);
    const x = randomBlocks(256 * 16, 3);
    for (const [type, tol] of [[GgmlType.Q4_K, 0.15], [GgmlType.Q5_K, 0.07], [GgmlType.Q6_K, 0.04], [GgmlType.Q5_0, 0.07]] as const) {
      const y = dequantize(type, quantize(type, x), x.length);
      let worst = 0;
      for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]));
      assert.ok(worst < tol, `${GgmlType[type]} worst error ${worst}`);
    }
  });

  test('all-zero blocks decode to zeros', () => {
    const z = new Float32Array(256);
    for (const type of [GgmlType.Q8_0, GgmlType.Q4_0, GgmlType.Q5_0, GgmlType.Q4_K, GgmlType.Q5_K, GgmlType.Q6_K]) {
      // Q4_0/Q5_0 give −0 like ggml (d = 0 / −8), hence === rather than deepEqual.
      assert.ok(dequantize(type, quantize(type, z), 256).every((v) => v === 0), GgmlType[type]);
    }
  });

  test('rejects lengths that are not whole blocks', () => {
    assert.throws(() => quantize(GgmlType.Q8_0, new Float32Array(31)), /multiple of 32/);
    assert.throws(() => dequantize(GgmlType.Q6_K, new Uint8Array(210), 512), /need 420 bytes/);
    assert.throws(() => quantize(GgmlType.Q2_K, new Float32Array(256)), /not supported/);
  });
});
