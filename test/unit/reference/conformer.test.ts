import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  attentionContextOf,
  computeMel,
  conformerLayer,
  convModule,
  loadConformerLayer,
  loadEncoder,
  loadMelWeights,
  readHParams,
  relPositionalEncoding,
  runEncoder,
} from '../../reference/index.js';
import { makeRandomWeightSource, makeRng, makeTestSignal } from '../../reference/testing/random-weights.js';

function randomRows(T: number, D: number, seed: number): Float64Array {
  const rng = makeRng(seed);
  return new Float64Array(T * D).map(() => 2 * rng() - 1);
}

test('a conformer layer: valid rows do not depend on padded rows (key mask + GLU zeroing)', () => {
  for (const convNormType of ['batch_norm', 'layer_norm'] as const) {
    const w = makeRandomWeightSource({ dModel: 16, nHeads: 2, nLayers: 1, convKernel: 5, convNormType, seed: 4 });
    const hp = readHParams(w);
    const lw = loadConformerLayer(w, 0, hp.enc);
    const T = 9;
    const Tv = 6;
    const pe = relPositionalEncoding(T, 16);
    const x = randomRows(T, 16, 1);
    const y = conformerLayer(x, T, Tv, pe, lw, hp.enc, attentionContextOf(hp.enc));
    const x2 = Float64Array.from(x);
    for (let i = Tv * 16; i < x2.length; i++) x2[i] = 50 * Math.sin(i);
    const y2 = conformerLayer(x2, T, Tv, pe, lw, hp.enc, attentionContextOf(hp.enc));
    for (let i = 0; i < Tv * 16; i++) assert.ok(Math.abs(y[i] - y2[i]) < 1e-12, `${convNormType} i=${i}`);
    // but padded rows do change (they are not masked at the output)
    assert.notEqual(y[(T - 1) * 16], y2[(T - 1) * 16]);
  }
});

test('conv module: depthwise kernel is centred; causal variant only looks back', () => {
  const D = 8;
  const T = 12;
  for (const convCausal of [false, true]) {
    const w = makeRandomWeightSource({ dModel: D, nHeads: 2, nLayers: 1, convKernel: 5, convCausal, seed: 8 });
    const hp = readHParams(w);
    const cw = loadConformerLayer(w, 0, hp.enc).conv;
    const x = randomRows(T, D, 2);
    const y = convModule(x, T, T, D, cw);
    const x2 = Float64Array.from(x);
    for (let c = 0; c < D; c++) x2[7 * D + c] += 1; // perturb frame 7
    const y2 = convModule(x2, T, T, D, cw);
    const changed = (t: number) => y.subarray(t * D, t * D + D).some((v, c) => v !== y2[t * D + c]);
    // symmetric K=5: frames 5..9 see frame 7; causal (left pad 4): frames 7..11
    const expected = convCausal ? [7, 8, 9, 10, 11] : [5, 6, 7, 8, 9];
    for (let t = 0; t < T; t++) assert.equal(changed(t), expected.includes(t), `causal=${convCausal} t=${t}`);
  }
});

test('encoder capture: stages line up with the output', () => {
  const w = makeRandomWeightSource({ dModel: 32, nHeads: 4, nLayers: 2, subsamplingChannels: 8, seed: 12 });
  const hp = readHParams(w);
  const mel = computeMel(makeTestSignal(32000), hp.pre, loadMelWeights(w, hp));
  const r = runEncoder(mel, loadEncoder(w, hp), { capture: true });
  assert.equal(r.frames, 26);
  assert.equal(r.validFrames, 25);
  assert.equal(r.out.length, 26 * 32);
  assert.ok(r.stages);
  assert.equal(r.stages.layers.length, 2);
  assert.deepEqual(Array.from(r.stages.layers[1]), Array.from(r.out));
  assert.equal(r.stages.subsampling.length, 26 * 32);
  assert.equal(r.stages.posEnc.length, 51 * 32);
  assert.ok(r.out.every((v) => Number.isFinite(v)));
});
