import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  conv3x3s2,
  loadSubsampling,
  maskRows,
  pointwise,
  readHParams,
  runSubsampling,
  stageOutLength,
  subsamplingLengths,
} from '../../reference/index.js';
import { makeRandomWeightSource, makeRng } from '../../reference/testing/random-weights.js';

test('length recurrences: T=201 → 101, 51, 26 spatial; valid 200 → 100, 50, 25', () => {
  assert.deepEqual(subsamplingLengths(201, 200, 3), { spatial: [201, 101, 51, 26], valid: [200, 100, 50, 25] });
  let f = 80;
  const fs = [f];
  for (let i = 0; i < 3; i++) fs.push((f = stageOutLength(f, false)));
  assert.deepEqual(fs, [80, 40, 20, 10]);
  f = 128;
  for (let i = 0; i < 3; i++) f = stageOutLength(f, false);
  assert.equal(f, 16);
  // causal: floor(n/2) + 1
  assert.deepEqual(subsamplingLengths(201, 200, 3, true), { spatial: [201, 101, 51, 26], valid: [200, 101, 51, 26] });
  assert.equal(stageOutLength(0, false), 0);
});

function randomMel(M: number, T: number, valid: number, seed: number): Float64Array {
  const rng = makeRng(seed);
  const mel = new Float64Array(M * T);
  for (let m = 0; m < M; m++) for (let t = 0; t < valid; t++) mel[m * T + t] = 2 * rng() - 1;
  return mel;
}

test('spatial/valid frames of the real stage, padded output rows equal out.bias (×√D with xscaling)', () => {
  for (const xscaling of [false, true]) {
    const w = makeRandomWeightSource({ nMels: 80, dModel: 32, subsamplingChannels: 8, xscaling });
    const hp = readHParams(w);
    const sw = loadSubsampling(w, hp);
    const mel = randomMel(80, 201, 200, 1);
    const r = runSubsampling(mel, 80, 201, 200, sw);
    assert.equal(r.frames, 26);
    assert.equal(r.validFrames, 25);
    const k = xscaling ? Math.sqrt(32) : 1;
    for (let c = 0; c < 32; c++) assert.ok(Math.abs(r.out[25 * 32 + c] - sw.outB[c] * k) < 1e-12);
  }
});

test('masking before every stage: valid rows ignore padded input and the zeroed intermediate row matters', () => {
  const M = 16;
  const C = 4;
  const w = makeRandomWeightSource({ nMels: M, dModel: 16, subsamplingChannels: C, seed: 9 });
  const hp = readHParams(w);
  const sw = loadSubsampling(w, hp);
  // T = 203 (L0 = 202): stage 1 has spatial 102 but valid 101 (odd), so the last valid row of stage 2
  // reads the first padded row of stage 1.
  const T = 203;
  const L0 = 202;
  const mel = randomMel(M, T, L0, 2);
  const r = runSubsampling(mel, M, T, L0, sw);
  assert.equal(r.frames, 26);
  assert.equal(r.validFrames, 26);
  // Garbage in mel rows ≥ L0 changes nothing (first mask).
  const mel2 = Float64Array.from(mel);
  for (let m = 0; m < M; m++) mel2[m * T + T - 1] = 1e3;
  const r2 = runSubsampling(mel2, M, T, L0, sw);
  assert.deepEqual(Array.from(r2.out), Array.from(r.out));

  // The same chain built from the exported pieces, with and without the intermediate masks.
  const chain = (masks: boolean): Float64Array => {
    let H = T;
    let W = M;
    let x: Float64Array = new Float64Array(H * W);
    for (let m = 0; m < M; m++) for (let t = 0; t < T; t++) x[t * W + m] = mel[m * T + t];
    let L = L0;
    let ch = 1;
    for (const st of sw.stages) {
      if (masks || ch === 1) maskRows(x, ch, H, W, L);
      const c = conv3x3s2(x, ch, H, W, st.convW, st.convB, C, false);
      x = c.y;
      H = c.H;
      W = c.W;
      ch = C;
      L = stageOutLength(L, false);
      if (st.pwW && st.pwB) x = pointwise(x, C, H * W, st.pwW, st.pwB);
      for (let i = 0; i < x.length; i++) x[i] = Math.max(0, x[i]);
      if (masks) maskRows(x, C, H, W, L);
    }
    const F = W;
    const out = new Float64Array(H * 16);
    for (let t = 0; t < H; t++)
      for (let d = 0; d < 16; d++) {
        let s = sw.outB[d];
        for (let c = 0; c < C; c++) for (let f = 0; f < F; f++) s += sw.outW[d * C * F + c * F + f] * x[c * H * F + t * F + f];
        out[t * 16 + d] = s;
      }
    return out;
  };
  const masked = chain(true);
  const unmasked = chain(false);
  for (let i = 0; i < masked.length; i++) assert.ok(Math.abs(masked[i] - r.out[i]) < 1e-11, `i=${i}`);
  // Rows 0..24 agree without the intermediate masks; the last valid row 25 does not.
  for (let i = 0; i < 25 * 16; i++) assert.ok(Math.abs(unmasked[i] - r.out[i]) < 1e-11);
  let diff = 0;
  for (let d = 0; d < 16; d++) diff = Math.max(diff, Math.abs(unmasked[25 * 16 + d] - r.out[25 * 16 + d]));
  assert.ok(diff > 1e-6, `intermediate masking should change the last valid frame (diff ${diff})`);
});
