// The engine's cache-aware stream against the float64 streaming reference (test/reference/stream.ts),
// chunk by chunk, for every preset of the three generated families: F32 weights run exactly
// (weightType 'f32'); a Q8_0 file on the layout 'auto' picks runs its quantized kernels.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Model } from '../../native/index.js';
import { reliableTokenCount } from '../reference/decoding.js';
import { referenceStream, type StreamReferenceResult } from '../reference/stream.js';
import { speechLike, concat, quiet } from '../support/audio/signals.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { fmt, relL2 } from './helpers/compare.js';
import { ONE_THREAD } from './helpers/engine.js';
import { engineStream, familyModel, STREAMING_FAMILIES, type EngineStreamRun } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('stream-reference');
// Phrases with a pause between them (EOU-like models end utterances there), 5.3 s: not a whole chunk.
const pcm = concat(speechLike(2.1, 11), quiet(0.7, 12), speechLike(2.5, 13));

function compareChunks(label: string, ref: StreamReferenceResult, got: EngineStreamRun, upTo: number): void {
  assert.equal(got.chunks.length, ref.chunks.length, `${label}: streaming steps`);
  for (let i = 0; i < upTo; i++) {
    assert.deepEqual(got.chunks[i], ref.chunks[i], `${label}: chunk ${i} (of ${ref.chunks.length}, ${upTo} decided)`);
  }
  const refEvents = ref.events.filter((e) => got.tokenFrames.length === 0 || e.frame < (ref.chunkDetails[upTo]?.firstFrame ?? Infinity));
  const gotEvents = got.events.filter((e) => e.frame < (ref.chunkDetails[upTo]?.firstFrame ?? Infinity));
  assert.deepEqual(gotEvents, refEvents, `${label}: events`);
}

for (const family of STREAMING_FAMILIES) {
  const f32Path = familyModel(dir, family, 'f32').path;
  const q8Path = familyModel(dir, family, 'q8_0').path;
  const exact = Model.load(f32Path, { ...ONE_THREAD, weightType: 'f32' });
  const quantized = Model.load(q8Path, { ...ONE_THREAD, weightType: 'auto' });
  after(async () => {
    (await exact).dispose();
    (await quantized).dispose();
  });

  test(`${family}: every preset streams the reference's tokens and frames chunk by chunk (F32), encoder frames within 1e-4`, async () => {
    const model = await exact;
    const info = model.info();
    assert.ok(info.streaming, 'a streaming model');
    const weights = openWeightSource(f32Path);
    let tokens = 0;
    for (const [left, right] of info.attContextPresets) {
      const ref = referenceStream(weights, pcm, { attContext: [left, right] });
      const got = await engineStream(model, pcm, { attContext: [left, right], captureEncoder: true });
      const label = `${family} [${left},${right}]`;
      compareChunks(label, ref, got, ref.reliableChunks);
      assert.ok(ref.reliableChunks >= ref.chunks.length / 2, `${label}: most chunks are decided (${ref.reliableChunks} of ${ref.chunks.length})`);
      let worst = 0;
      for (const [i, c] of ref.chunkDetails.entries()) {
        assert.equal(got.raw[i].firstFrame, c.firstFrame, `${label}: chunk ${i} first frame`);
        assert.equal(got.raw[i].frames, c.frames, `${label}: chunk ${i} frames`);
        worst = Math.max(worst, relL2(c.encoder, got.raw[i].encoded!));
      }
      assert.ok(worst <= 1e-4, `${label}: encoder relative L2 ${fmt(worst)}`);
      tokens += ref.tokenIds.length;
      console.log(`${label}: ${ref.chunks.length} chunks, ${ref.tokenIds.length} tokens, events ${ref.events.map((e) => e.type).join(' ') || 'none'}, ` +
        `encoder rel L2 ≤ ${fmt(worst)}`);
    }
    assert.ok(tokens >= 10, `the seed gives non-trivial decodes (${tokens} tokens over the presets)`);
  });

  test(`${family}: a Q8_0 file on the 'auto' layout stays within Q8_0's encoder tolerance and streams the reference's tokens except at near-ties`, async () => {
    const model = await quantized;
    assert.ok((model.info().weightTypes.q8_0 ?? 0) > 0, `Q8_0 weights placed (${JSON.stringify(model.info().weightTypes)})`);
    const weights = openWeightSource(q8Path);
    let compared = 0;
    for (const [left, right] of model.info().attContextPresets) {
      const ref = referenceStream(weights, pcm, { attContext: [left, right] });
      const got = await engineStream(model, pcm, { attContext: [left, right], captureEncoder: true });
      const label = `${family} q8_0 [${left},${right}]`;
      // The reference runs the file's dequantized weights; the engine also quantizes activations to Q8_0,
      // which quantization.test.ts bounds at encoder relative L2 3e-2 on these tiny models.
      const worst = Math.max(...ref.chunkDetails.map((c, i) => relL2(c.encoder, got.raw[i].encoded!)));
      assert.ok(worst > 0 && worst <= 3e-2, `${label}: encoder relative L2 ${fmt(worst)}`);
      // That moves joint logits by up to about a tenth: decisions closer than 0.1 may flip, and what
      // follows a flip differs (the prediction state carries it). Tokens decided before the first such
      // decision must be the reference's, with their frames.
      const upTo = reliableTokenCount(ref.steps, 0.1);
      assert.deepEqual(got.tokenIds.slice(0, upTo), ref.tokenIds.slice(0, upTo), `${label}: the first ${upTo} tokens`);
      assert.deepEqual(got.tokenFrames.slice(0, upTo), ref.tokenFrames.slice(0, upTo), `${label}: their frames`);
      assert.equal(got.chunks.length, ref.chunks.length, `${label}: streaming steps`);
      compared += upTo;
    }
    assert.ok(compared >= 3, `enough tokens are decided beyond the Q8_0 noise to compare (${compared})`);
  });
}
