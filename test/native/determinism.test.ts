// Determinism: the same input gives identical results on repeated calls and on a
// fresh load; 1 and 2 CPU threads give identical tokens.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model, type TranscribeResult } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { fmt, maxAbsDiff, relL2 } from './helpers/compare.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('determinism');
const f32Path = join(dir, 'small-f32.gguf');
const q8Path = join(dir, 'small-q8_0.gguf');
generateModel(f32Path, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 8 });
generateModel(q8Path, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 8, weightType: 'q8_0' });
const pcm = speechSamples(dir, seconds(6));

/** Everything except timings. */
function comparable(r: TranscribeResult): unknown {
  const { timings: _t, mel, encoder, logProbs, ...rest } = r;
  return { ...rest, mel: mel && Array.from(mel.data), encoder: encoder && Array.from(encoder.data), logProbs: logProbs && Array.from(logProbs.data) };
}

describe('determinism', () => {
  test('the same input twice (and after a fresh load) gives identical results', async () => {
    const a = await Model.load(f32Path, { threads: 1 });
    for (const decoder of ['tdt', 'ctc'] as const) {
      const opts = { decoder, captureMel: true, captureEncoder: true, captureLogits: decoder === 'ctc' };
      const r1 = await a.transcribe(pcm, opts);
      const r2 = await a.transcribe(pcm, opts);
      assert.ok(r1.tokens.length > 5);
      assert.deepEqual(comparable(r2), comparable(r1), `${decoder}: second call`);
      const b = await Model.load(f32Path, { threads: 1, mmap: false });
      const r3 = await b.transcribe(pcm, opts);
      b.dispose();
      assert.deepEqual(comparable(r3), comparable(r1), `${decoder}: fresh load`);
    }
    a.dispose();
  });

  // linear_pos of the positional encoding is kept between runs and grows to the longest window
  // (native/engine/model/position_table.h): a window must come out the same whether the table was made
  // for it, for a longer window before it (its middle rows), or grown since.
  for (const [label, path] of [['F32', f32Path], ['Q8_0', q8Path]] as const) {
    test(`${label}: a window's encoder output does not depend on the windows before it`, async () => {
      const windows = [2, 6, 3, 9, 2].map((s) => pcm.subarray(0, seconds(s)));
      const kept = await Model.load(path, { threads: 1 });
      for (const [i, window] of windows.entries()) {
        const afterOthers = await kept.transcribe(window, { captureEncoder: true });
        const fresh = await Model.load(path, { threads: 1 });
        const alone = await fresh.transcribe(window, { captureEncoder: true });
        fresh.dispose();
        assert.ok(afterOthers.encoder && alone.encoder);
        assert.equal(afterOthers.encoder.frames, alone.encoder.frames);
        assert.deepEqual(Array.from(afterOthers.encoder.data), Array.from(alone.encoder.data), `${label}: window ${i} (${window.length} samples)`);
        assert.deepEqual(afterOthers.tokens, alone.tokens);
      }
      kept.dispose();
    });

    test(`${label}: threads 1 vs 2 give identical tokens`, async () => {
      const one = await Model.load(path, { threads: 1 });
      const two = await Model.load(path, { threads: 2 });
      assert.equal(two.info().threads, 2);
      for (const decoder of ['tdt', 'ctc'] as const) {
        const r1 = await one.transcribe(pcm, { decoder, captureEncoder: true, captureMel: true });
        const r2 = await two.transcribe(pcm, { decoder, captureEncoder: true, captureMel: true });
        assert.ok(r1.encoder && r2.encoder && r1.mel && r2.mel);
        // 6 s is 600 frames: with two threads the log-mel is split between them, and must not change.
        assert.equal(r2.threadsUsed, 2);
        assert.deepEqual(Array.from(r2.mel.data), Array.from(r1.mel.data), `${label} ${decoder}: the log-mel on two threads`);
        const n = r1.encoder.validFrames * r1.encoder.dim;
        console.log(`${label} ${decoder}: threads 1 vs 2 encoder max |diff| ${fmt(maxAbsDiff(r1.encoder.data, r2.encoder.data, n))}, rel L2 ${fmt(relL2(r1.encoder.data, r2.encoder.data, n))}; ${r1.tokens.length} tokens`);
        assert.ok(r1.tokens.length > 5);
        assert.deepEqual(r2.tokens.map((t) => [t.id, t.frame, t.duration]), r1.tokens.map((t) => [t.id, t.frame, t.duration]), `${label} ${decoder}`);
        assert.equal(r2.text, r1.text);
        assert.ok(relL2(r1.encoder.data, r2.encoder.data, n) <= 1e-6);
      }
      one.dispose();
      two.dispose();
    });
  }
});
