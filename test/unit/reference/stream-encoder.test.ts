// The streamed encoder (per-layer attention and conv caches, pre-encode cache, dropped frames, final
// partial chunk) against two independent whole-sequence computations:
// * right context ≥ 1: the offline limited-context encoder over all mel frames (Corrections 5);
// * every preset, incl. right context 0: each chunk's mel window subsampled on its own (the
//   chunk-by-chunk definition of NeMo's CacheAwareStreamingAudioBuffer), then the offline layers
//   over the concatenated frames with the preset's chunked_limited mask.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AttPreset, type WeightSource, computeMel, conformerLayer, deriveSchedule, loadReferenceModel, referenceOfflineAllFrames,
  referenceStream, relPositionalEncoding, runSubsampling, streamingPresets,
} from '../../reference/index.js';
import { STREAMING_FAMILIES } from '../../support/model/streaming.js';
import { CLIP, familyModel, maxAbsDiff, streamedFrames } from './stream-fixtures.js';

/** Float64 sums in the same order give the same bits; allow rounding-level noise only. */
const SAME = 1e-10;

/** Chunk-by-chunk subsampling of the whole-clip mel, then the offline layers over all frames. */
function chunkwiseDefinition(w: WeightSource, preset: AttPreset): Float64Array {
  const model = loadReferenceModel(w);
  const hp = model.hparams;
  const s = deriveSchedule(preset, hp.enc.subsamplingFactor);
  const mel = computeMel(CLIP, hp.pre, model.melWeights);
  const M = mel.nMels;
  const D = hp.enc.dModel;
  const parts: Float64Array[] = [];
  for (let start = 0, k = 0; start < mel.nFrames; k++) {
    const n = Math.min(s.chunkMel[k === 0 ? 0 : 1], mel.nFrames - start);
    const cache = s.preEncodeCache[k === 0 ? 0 : 1];
    const width = cache + n;
    const window = new Float64Array(M * width); // zeros before the clip start
    for (let m = 0; m < M; m++) {
      for (let c = 0; c < width; c++) {
        const t = start - cache + c;
        if (t >= 0) window[m * width + c] = mel.mel[m * mel.nFrames + t];
      }
    }
    const sub = runSubsampling(window, M, width, width, model.encoder.subsampling);
    parts.push(sub.out.slice((k === 0 ? 0 : s.dropExtra) * D));
    start += n;
  }
  const T = parts.reduce((a, p) => a + p.length / D, 0);
  let x: Float64Array = new Float64Array(T * D);
  let at = 0;
  for (const p of parts) {
    x.set(p, at);
    at += p.length;
  }
  const pe = relPositionalEncoding(T, D);
  const ctx = { left: preset[0], right: preset[1], style: hp.enc.attContextStyle };
  for (const lw of model.encoder.layers) x = conformerLayer(x, T, T, pe, lw, hp.enc, ctx);
  return x;
}

for (const family of STREAMING_FAMILIES) {
  describe(`${family}: streamed encoder`, () => {
    const w = familyModel(family);
    const presets = streamingPresets(w, loadReferenceModel(w).hparams);
    for (const preset of presets) {
      test(`[${preset.join(',')}]`, () => {
        const model = loadReferenceModel(w);
        const r = referenceStream(w, CLIP, { attContext: preset });
        const streamed = streamedFrames(r.chunkDetails);
        const offline = referenceOfflineAllFrames(w, CLIP, preset);
        // Every mel frame incl. the final zeroed one reaches the encoder: same frame count as offline.
        assert.equal(r.melFrames, computeMel(CLIP, model.hparams.pre, model.melWeights).nFrames);
        assert.equal(r.encoderFrames, offline.frames, 'streamed frames = offline frames over all mel frames');
        const last = r.chunkDetails[r.chunkDetails.length - 1];
        assert.ok(last.melFrames > 0 && last.melFrames < r.schedule.chunkMel[1], `a partial last chunk (${last.melFrames} mel frames)`);
        const vsChunkwise = maxAbsDiff(streamed, chunkwiseDefinition(w, preset));
        assert.ok(vsChunkwise <= SAME, `streamed vs chunk-by-chunk definition: max |diff| ${vsChunkwise}`);
        const vsOffline = maxAbsDiff(streamed, offline.out);
        if (preset[1] >= 1) {
          assert.ok(vsOffline <= SAME, `R ≥ 1: streamed vs offline limited-context encoder: max |diff| ${vsOffline}`);
        } else {
          // The second chunk's pre-encode cache is zero-padded mel, not the offline conv padding.
          assert.ok(vsOffline > 1e-6, `R = 0 is expected to differ from the offline pass (max |diff| ${vsOffline})`);
        }
      });
    }
  });
}
