import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detokenize, referenceTranscribe, subsamplingLengths } from '../../reference/index.js';
import { makeRandomWeightSource, makeTestSignal } from '../../reference/testing/random-weights.js';

test('default decoders and decoder selection', () => {
  const pcm = makeTestSignal(16000);
  const dims = { dModel: 32, nHeads: 2, nLayers: 1, subsamplingChannels: 8 };
  const tdt = referenceTranscribe(makeRandomWeightSource({ ...dims, head: 'hybrid_tdt_ctc' }), pcm);
  assert.equal(tdt.decoder, 'tdt');
  const hybridCtc = referenceTranscribe(makeRandomWeightSource({ ...dims, head: 'hybrid_tdt_ctc' }), pcm, { decoder: 'ctc' });
  assert.equal(hybridCtc.decoder, 'ctc');
  assert.equal(referenceTranscribe(makeRandomWeightSource({ ...dims, head: 'rnnt' }), pcm).decoder, 'rnnt');
  assert.equal(referenceTranscribe(makeRandomWeightSource({ ...dims, head: 'ctc' }), pcm).decoder, 'ctc');
  assert.throws(() => referenceTranscribe(makeRandomWeightSource({ ...dims, head: 'rnnt' }), pcm, { decoder: 'tdt' }));
  assert.throws(() => referenceTranscribe(makeRandomWeightSource({ ...dims, head: 'rnnt' }), pcm, { decoder: 'ctc' }));
});

test('CTC result: log-prob rows, tokens within the valid length, text from tokens', () => {
  const w = makeRandomWeightSource({ dModel: 32, nHeads: 2, nLayers: 1, subsamplingChannels: 8, head: 'ctc', vocabSize: 20 });
  const r = referenceTranscribe(w, makeTestSignal(3 * 16000 + 123));
  assert.ok(r.logits);
  const C = 21;
  assert.equal(r.logits.length, r.encoder.frames * C);
  for (let t = 0; t < r.encoder.frames; t++) {
    let s = 0;
    for (let c = 0; c < C; c++) s += Math.exp(r.logits[t * C + c]);
    assert.ok(Math.abs(s - 1) < 1e-12);
  }
  assert.equal(r.steps.length, r.encoder.validFrames);
  assert.ok(r.tokens.every((t) => t.frame < r.encoder.validFrames && t.id < 20));
  assert.equal(r.text, detokenize(r.hparams.pieces, r.tokens.map((t) => t.id)));
  assert.ok(r.reliableTokens <= r.tokens.length);
});

test('TDT result: durations from the table, both rules run, confidences in [−1/(N−1), 1]', () => {
  const w = makeRandomWeightSource({ dModel: 32, nHeads: 2, nLayers: 1, subsamplingChannels: 8, head: 'tdt', seed: 99 });
  const pcm = makeTestSignal(2 * 16000);
  for (const tdtRule of ['greedy_batch', 'greedy'] as const) {
    const r = referenceTranscribe(w, pcm, { tdtRule });
    assert.ok(r.tokens.every((t) => [0, 1, 2, 3, 4].includes(t.duration) && t.frame < r.encoder.validFrames));
    assert.ok(r.tokens.every((t) => t.confidence <= 1 && t.confidence >= -1 / 32));
    assert.ok(r.steps.every((s) => s.durationMargin !== undefined));
    assert.equal(r.text, detokenize(r.hparams.pieces, r.tokens.map((t) => t.id)));
    for (const wd of r.words) assert.ok(wd.start <= wd.end);
  }
});

test('speed: tiny model (D=64, 2 layers) on 45 s and small model (D=128, 3 layers) on 10 s', { timeout: 120_000 }, () => {
  const cases = [
    { dims: { dModel: 64, nLayers: 2, nHeads: 4, subsamplingChannels: 64, head: 'hybrid_tdt_ctc' as const }, seconds: 45 },
    { dims: { dModel: 128, nLayers: 3, nHeads: 4, subsamplingChannels: 128, head: 'hybrid_tdt_ctc' as const }, seconds: 10 },
  ];
  for (const c of cases) {
    const w = makeRandomWeightSource(c.dims);
    const t0 = performance.now();
    const r = referenceTranscribe(w, makeTestSignal(c.seconds * 16000));
    const ms = performance.now() - t0;
    console.log(`reference D=${c.dims.dModel} L=${c.dims.nLayers} ${c.seconds}s: ${ms.toFixed(0)} ms, T'=${r.encoder.frames}, tokens=${r.tokens.length}`);
    const lens = subsamplingLengths(1 + c.seconds * 100, c.seconds * 100, 3);
    assert.equal(r.encoder.frames, lens.spatial[3]);
    assert.equal(r.encoder.validFrames, lens.valid[3]);
  }
});
