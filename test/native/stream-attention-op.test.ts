// The fused streaming attention (native/engine/stream_attention_op.cpp) on head widths the tiny
// models (dk 16) do not reach: dk 80 runs both its 64-channel context groups and its 16-channel
// tail. Against the float64 streaming reference, chunk by chunk, in F32.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Model } from '../../native/index.js';
import { referenceStream } from '../reference/stream.js';
import { concat, quiet, speechLike } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { FAMILY_TEST_SEEDS } from '../support/model/streaming.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { fmt, relL2 } from './helpers/compare.js';
import { ONE_THREAD } from './helpers/engine.js';
import { engineStream } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('stream-attention-op');
const pcm = concat(speechLike(1.6, 21), quiet(0.4, 22), speechLike(1.4, 23));

test('streaming attention with 80-channel heads: encoder frames within 1e-4 of the reference and its decided tokens, every preset (F32)', async () => {
  const path = generateModel(join(dir, 'dk80.gguf'), {
    preset: 'tiny', family: 'nemotron-en', dModel: 160, nHeads: 2, weightType: 'f32', seed: FAMILY_TEST_SEEDS['nemotron-en'],
  }).path;
  const model = await Model.load(path, { ...ONE_THREAD, weightType: 'f32' });
  try {
    const weights = openWeightSource(path);
    for (const preset of model.info().attContextPresets) {
      const ref = referenceStream(weights, pcm, { attContext: preset });
      const got = await engineStream(model, pcm, { attContext: preset, captureEncoder: true });
      const label = `[${preset.join(',')}]`;
      assert.equal(got.raw.length, ref.chunkDetails.length, `${label}: streaming steps`);
      let worst = 0;
      for (const [i, c] of ref.chunkDetails.entries()) worst = Math.max(worst, relL2(c.encoder, got.raw[i].encoded!));
      assert.ok(worst <= 1e-4, `${label}: encoder relative L2 ${fmt(worst)}`);
      for (let i = 0; i < ref.reliableChunks; i++) assert.deepEqual(got.chunks[i], ref.chunks[i], `${label}: chunk ${i}`);
    }
  } finally {
    model.dispose();
  }
});
