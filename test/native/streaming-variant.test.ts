// The cache-aware streaming checkpoints (parakeet_realtime_eou_120m: chunked_limited
// attention, causal subsampling and depthwise conv, layer-norm conv module, no mel
// normalization, RNNT with <EOU>) decoded offline: engine vs the float64 reference.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Model } from '../../native/index.js';
import { referenceTranscribe } from '../reference/index.js';
import { gv } from '../support/gguf/values.js';
import { GgufValueType } from '../support/gguf/types.js';
import { generateModel } from '../support/model/generate.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { speechSamples, seconds } from './helpers/audio.js';
import { commonPrefix, describeTokens, fmt, maxAbsDiff, relL2 } from './helpers/compare.js';
import { ONE_THREAD } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('streaming-variant');
const path = join(dir, 'eou-like.gguf');
generateModel(path, {
  preset: 'tiny',
  arch: 'rnnt',
  nMels: 128,
  convNormType: 'layer_norm',
  normalize: 'NA',
  seed: 2,
  extraKv: [
    { key: 'parakeet.encoder.att_context_style', value: gv.str('chunked_limited') },
    { key: 'parakeet.encoder.att_context_left', value: gv.i32(8) },
    { key: 'parakeet.encoder.att_context_right', value: gv.i32(1) },
    { key: 'parakeet.encoder.causal_downsampling', value: gv.bool(true) },
    { key: 'parakeet.encoder.conv_causal', value: gv.bool(true) },
    { key: 'parakeet.streaming.chunk_size', value: gv.arr(GgufValueType.INT32, [9, 16]) },
  ],
});
const modelPromise = Model.load(path, { ...ONE_THREAD, weightType: 'f32' });  // the exact F32 path, at the reference's 1e-4
after(async () => (await modelPromise).dispose());

for (const secs of [1.3, 6]) {
  test(`chunked_limited + causal convs + layer norm, ${secs} s of speech: mel, encoder and tokens match the reference`, async () => {
    const model = await modelPromise;
    const info = model.info();
    assert.equal(info.attContextStyle, 'chunked_limited');
    assert.equal(info.attContextLeft, 8);
    assert.equal(info.attContextRight, 1);
    assert.equal(info.convNormType, 'layer_norm');
    assert.equal(info.normalize, 'NA');
    const pcm = speechSamples(dir, seconds(secs));
    const res = await model.transcribe(pcm, { captureMel: true, captureEncoder: true });
    const ref = referenceTranscribe(openWeightSource(path), pcm, {});
    const melMax = maxAbsDiff(ref.mel.mel, res.mel!.data);
    assert.ok(melMax <= 1e-4, `mel max |diff| ${fmt(melMax)}`);
    assert.equal(res.encoder!.frames, ref.encoder.frames, 'causal subsampling length');
    assert.equal(res.encoder!.validFrames, ref.encoder.validFrames);
    const rel = relL2(ref.encoder.out, res.encoder!.data, res.encoder!.validFrames * res.encoder!.dim);
    assert.ok(rel <= 1e-4, `encoder relative L2 ${fmt(rel)}`);
    const agreeing = commonPrefix(ref.tokens, res.tokens);
    assert.ok(agreeing >= ref.reliableTokens, `tokens differ early\n  ref ${describeTokens(ref.tokens)}\n  eng ${describeTokens(res.tokens)}`);
    if (secs > 5) assert.ok(ref.reliableTokens >= 10, 'the seed gives a non-trivial decode');
    console.log(`streaming variant ${secs} s: mel ${fmt(melMax)}, encoder rel L2 ${fmt(rel)}, ${ref.tokens.length} tokens (${ref.reliableTokens} decided)`);
  });
}
