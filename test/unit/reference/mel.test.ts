import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  centredWindow,
  computeMel,
  loadMelWeights,
  melLengths,
  readHParams,
} from '../../reference/index.js';
import { makeRandomWeightSource, makeTestSignal } from '../../reference/testing/random-weights.js';

test('frame count and valid length: T = 1 + floor(S/160), seq_len = floor(S/160)', () => {
  assert.deepEqual(melLengths(32000, 512, 160), { nFrames: 201, validFrames: 200 });
  assert.deepEqual(melLengths(32159, 512, 160), { nFrames: 201, validFrames: 200 });
  assert.deepEqual(melLengths(32160, 512, 160), { nFrames: 202, validFrames: 201 });
  assert.deepEqual(melLengths(0, 512, 160), { nFrames: 1, validFrames: 0 });
});

test('window is zero-padded to n_fft, centred (56 zeros each side for 400 in 512)', () => {
  const w = new Float64Array(400).fill(1);
  const c = centredWindow(w, 512);
  assert.equal(c.length, 512);
  for (let i = 0; i < 512; i++) assert.equal(c[i], i >= 56 && i < 456 ? 1 : 0, `i=${i}`);
});

test('log-mel of an impulse matches the hand-derived power spectrum (no normalization)', () => {
  for (const preemph of [0, Math.fround(0.97)]) {
    const w = makeRandomWeightSource({ normalize: 'NA', preemph, nMels: 16 });
    const hp = readHParams(w);
    const mw = loadMelWeights(w, hp);
    const S = 4000;
    const s0 = 1000;
    const x = new Float64Array(S);
    x[s0] = 1;
    const r = computeMel(x, hp.pre, mw);
    assert.equal(r.nFrames, 26);
    assert.equal(r.validFrames, 25);
    const win = centredWindow(mw.window, 512);
    const guard = hp.pre.logZeroGuard;
    for (let t = 0; t < r.validFrames; t++) {
      // The pre-emphasised signal is δ[s0] − c·δ[s0+1]; in frame t they sit at window positions i, i+1.
      const i = s0 + 256 - t * 160;
      const a = i >= 0 && i < 512 ? win[i] : 0;
      const b = i + 1 >= 0 && i + 1 < 512 ? -preemph * win[i + 1] : 0;
      for (let m = 0; m < r.nMels; m++) {
        // |a + b·e^{−2πik/N}|² = a² + b² + 2ab·cos(2πk/N)
        let s = 0;
        for (let k = 0; k <= 256; k++) {
          const p = a * a + b * b + 2 * a * b * Math.cos((2 * Math.PI * k) / 512);
          s += mw.fb[m * 257 + k] * p;
        }
        const want = Math.log(s + guard);
        const got = r.mel[m * r.nFrames + t];
        assert.ok(Math.abs(got - want) < 1e-9, `preemph=${preemph} t=${t} m=${m}: ${got} vs ${want}`);
      }
    }
    // The last frame (t = T−1 ≥ seq_len) is zeroed even without normalization.
    for (let m = 0; m < r.nMels; m++) assert.equal(r.mel[m * r.nFrames + r.nFrames - 1], 0);
  }
});

test('per_feature: each bin has mean 0 and unbiased std s/(s+1e-5) over valid frames, padded frames 0', () => {
  const wNA = makeRandomWeightSource({ normalize: 'NA', nMels: 24, seed: 3 });
  const wPF = makeRandomWeightSource({ normalize: 'per_feature', nMels: 24, seed: 3 });
  const x = makeTestSignal(16000 + 77);
  const hpNA = readHParams(wNA);
  const hpPF = readHParams(wPF);
  const raw = computeMel(x, hpNA.pre, loadMelWeights(wNA, hpNA));
  const norm = computeMel(x, hpPF.pre, loadMelWeights(wPF, hpPF));
  assert.equal(norm.nFrames, 101);
  assert.equal(norm.validFrames, 100);
  const n = norm.validFrames;
  for (let m = 0; m < norm.nMels; m++) {
    const o: number = m * norm.nFrames;
    let rawMean = 0;
    for (let t = 0; t < n; t++) rawMean += raw.mel[o + t];
    rawMean /= n;
    let rawSS = 0;
    for (let t = 0; t < n; t++) rawSS += (raw.mel[o + t] - rawMean) ** 2;
    const s = Math.sqrt(rawSS / (n - 1));
    let mean = 0;
    for (let t = 0; t < n; t++) mean += norm.mel[o + t];
    mean /= n;
    let ss = 0;
    for (let t = 0; t < n; t++) ss += (norm.mel[o + t] - mean) ** 2;
    const std = Math.sqrt(ss / (n - 1));
    assert.ok(Math.abs(mean) < 1e-10, `mean m=${m}: ${mean}`);
    assert.ok(Math.abs(std - 1 / (1 + 1e-5 / s)) < 1e-10, `std m=${m}: ${std}`);
    assert.equal(norm.mel[o + norm.nFrames - 1], 0);
  }
});

test('edge lengths: one valid frame normalizes to 0 (std NaN → 0), no valid frame gives all zeros', () => {
  const w = makeRandomWeightSource({ nMels: 8 });
  const hp = readHParams(w);
  const mw = loadMelWeights(w, hp);
  const one = computeMel(makeTestSignal(160), hp.pre, mw);
  assert.equal(one.nFrames, 2);
  assert.equal(one.validFrames, 1);
  assert.ok(one.mel.every((v) => v === 0));
  const none = computeMel(makeTestSignal(100), hp.pre, mw);
  assert.equal(none.nFrames, 1);
  assert.equal(none.validFrames, 0);
  assert.ok(none.mel.every((v) => v === 0));
});
