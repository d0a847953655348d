import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FftPlan, dft, fft } from '../../reference/index.js';
import { makeRng } from '../../reference/testing/random-weights.js';

function randomComplex(n: number, seed: number): { re: Float64Array; im: Float64Array } {
  const rng = makeRng(seed);
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    re[i] = 2 * rng() - 1;
    im[i] = 2 * rng() - 1;
  }
  return { re, im };
}

function maxAbsDiff(a: Float64Array, b: Float64Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

test('radix-2 FFT equals the direct DFT (n = 2 … 512)', () => {
  for (const n of [1, 2, 4, 8, 64, 512]) {
    const x = randomComplex(n, n);
    const ref = dft(x.re, x.im);
    const re = Float64Array.from(x.re);
    const im = Float64Array.from(x.im);
    fft(re, im);
    assert.ok(maxAbsDiff(re, ref.re) < 1e-12 * n, `re n=${n}`);
    assert.ok(maxAbsDiff(im, ref.im) < 1e-12 * n, `im n=${n}`);
  }
});

test('direct DFT matches the textbook sum, and non-power-of-two sizes fall back to it', () => {
  for (const n of [3, 12, 400]) {
    const x = randomComplex(n, 100 + n);
    const re = Float64Array.from(x.re);
    const im = Float64Array.from(x.im);
    new FftPlan(n).transform(re, im);
    for (const k of [0, 1, n - 1, Math.floor(n / 3)]) {
      let sr = 0;
      let si = 0;
      for (let t = 0; t < n; t++) {
        const a = (-2 * Math.PI * k * t) / n;
        sr += x.re[t] * Math.cos(a) - x.im[t] * Math.sin(a);
        si += x.re[t] * Math.sin(a) + x.im[t] * Math.cos(a);
      }
      assert.ok(Math.abs(re[k] - sr) < 1e-10, `re n=${n} k=${k}`);
      assert.ok(Math.abs(im[k] - si) < 1e-10, `im n=${n} k=${k}`);
    }
  }
});

test('known transforms: impulse and cosine', () => {
  const n = 512;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  re[5] = 1;
  fft(re, im);
  for (let k = 0; k < n; k++) {
    assert.ok(Math.abs(re[k] - Math.cos((2 * Math.PI * 5 * k) / n)) < 1e-13);
    assert.ok(Math.abs(im[k] + Math.sin((2 * Math.PI * 5 * k) / n)) < 1e-13);
  }
  const c = new Float64Array(n);
  const ci = new Float64Array(n);
  for (let t = 0; t < n; t++) c[t] = Math.cos((2 * Math.PI * 17 * t) / n);
  fft(c, ci);
  for (let k = 0; k < n; k++) {
    const want = k === 17 || k === n - 17 ? n / 2 : 0;
    assert.ok(Math.abs(c[k] - want) < 1e-10 && Math.abs(ci[k]) < 1e-10, `k=${k}`);
  }
});
