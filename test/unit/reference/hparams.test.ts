import assert from 'node:assert/strict';
import { test } from 'node:test';
import { frameSeconds, readHParams } from '../../reference/index.js';
import { makeRandomWeightSource } from '../../reference/testing/random-weights.js';

test('reads every dimension and detects heads', () => {
  const tdt = readHParams(makeRandomWeightSource({ head: 'hybrid_tdt_ctc', dModel: 32, nHeads: 2, nLayers: 1 }));
  assert.equal(tdt.enc.dModel, 32);
  assert.equal(tdt.enc.nHeads, 2);
  assert.equal(tdt.ctcPrefix, 'ctc_decoder');
  assert.ok(tdt.transducer?.isTdt);
  assert.deepEqual(tdt.transducer?.durations, [0, 1, 2, 3, 4]);
  assert.equal(frameSeconds(tdt), 0.08);
  const ctc = readHParams(makeRandomWeightSource({ head: 'ctc', dModel: 32, nLayers: 1 }));
  assert.equal(ctc.ctcPrefix, 'decoder');
  assert.equal(ctc.transducer, null);
  const rnnt = readHParams(makeRandomWeightSource({ head: 'rnnt', dModel: 32, nLayers: 1 }));
  assert.equal(rnnt.ctcPrefix, null);
  assert.equal(rnnt.transducer?.isTdt, false);
});

test('loader defaults when keys are absent; tensor-implied values fill structural keys', () => {
  const w = makeRandomWeightSource({ head: 'tdt', dModel: 32, nLayers: 2, nHeads: 4, predLayers: 2 });
  for (const k of [
    'parakeet.encoder.xscaling', 'parakeet.encoder.conv_norm_type', 'parakeet.decoding.max_symbols',
    'parakeet.encoder.use_bias', 'parakeet.encoder.n_heads', 'parakeet.encoder.n_layers', 'parakeet.encoder.d_model',
    'parakeet.decoder.pred_rnn_layers', 'parakeet.preprocessor.sample_rate', 'parakeet.blank_id',
  ]) w.kv.delete(k);
  const hp = readHParams(w);
  assert.equal(hp.enc.xscaling, true);
  assert.equal(hp.enc.convNormType, 'batch_norm');
  assert.equal(hp.enc.useBias, true);
  assert.equal(hp.transducer?.maxSymbols, 10);
  assert.equal(hp.enc.nHeads, 4);
  assert.equal(hp.enc.nLayers, 2);
  assert.equal(hp.enc.dModel, 32);
  assert.equal(hp.transducer?.predLayers, 2);
  assert.equal(hp.pre.sampleRate, 16000);
  assert.equal(hp.blankId, 32);
  // pred_rnn_layers = 0 is read as 1
  const w1 = makeRandomWeightSource({ head: 'rnnt', dModel: 32, nLayers: 1 });
  w1.kv.set('parakeet.decoder.pred_rnn_layers', 0);
  assert.equal(readHParams(w1).transducer?.predLayers, 1);
  // TDT iff durations non-empty
  const w2 = makeRandomWeightSource({ head: 'rnnt', dModel: 32, nLayers: 1 });
  w2.kv.set('parakeet.tdt.durations', []);
  assert.equal(readHParams(w2).transducer?.isTdt, false);
});

test('contradictions and non-ASR files are rejected', () => {
  const w = makeRandomWeightSource({ dModel: 32, nLayers: 1 });
  w.kv.set('parakeet.encoder.n_heads', 3);
  assert.throws(() => readHParams(w), /n_heads/);
  const d = makeRandomWeightSource({ dModel: 32, nLayers: 1 });
  d.kv.set('parakeet.arch', 'diarization');
  assert.throws(() => readHParams(d), /not ASR/);
  const v = makeRandomWeightSource({ dModel: 32, nLayers: 1 });
  v.kv.set('general.architecture', 'silero_vad');
  assert.throws(() => readHParams(v), /not an ASR/);
});
