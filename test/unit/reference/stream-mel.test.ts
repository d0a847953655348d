// Frame-local mel from PCM fed in blocks equals the whole-clip mel, including its final zeroed frame.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MelStream, computeMel, loadReferenceModel } from '../../reference/index.js';
import { CLIP, familyModel } from './stream-fixtures.js';

test('MelStream: every block size gives the whole-clip mel frame by frame, the last frame zero', () => {
  const model = loadReferenceModel(familyModel('eou'));
  const whole = computeMel(CLIP, model.hparams.pre, model.melWeights);
  for (const block of [1, 159, 160, 161, 400, 4096, CLIP.length]) {
    const stream = new MelStream(model.hparams.pre, model.melWeights);
    let finalBeforeEnd = 0;
    for (let i = 0; i < CLIP.length; i += block) finalBeforeEnd = stream.push(CLIP.subarray(i, i + block));
    // Before the end, frames whose window reaches past the audio are not final yet.
    assert.ok(finalBeforeEnd < whole.nFrames - 1, `block ${block}: ${finalBeforeEnd} final before the end`);
    assert.equal(stream.end(), whole.nFrames, `block ${block}: frame count`);
    for (let t = 0; t < whole.nFrames; t++) {
      const f = stream.frame(t);
      for (let m = 0; m < whole.nMels; m++) {
        assert.equal(f[m], whole.mel[m * whole.nFrames + t], `block ${block}: frame ${t} mel ${m}`);
      }
    }
    assert.ok(stream.frame(whole.nFrames - 1).every((v) => v === 0), 'the final frame is zero (valid length T − 1)');
  }
});

test('MelStream: short and empty clips, push after end and per-feature models are refused', () => {
  const model = loadReferenceModel(familyModel('eou'));
  for (const n of [0, 1, 255, 256, 257, 480]) {
    const pcm = CLIP.subarray(0, n);
    const stream = new MelStream(model.hparams.pre, model.melWeights);
    stream.push(pcm);
    const expected = n === 0 ? 0 : computeMel(pcm, model.hparams.pre, model.melWeights).nFrames;
    assert.equal(stream.end(), expected, `${n} samples (none: no frames)`);
    assert.throws(() => stream.push(pcm), /push after end/);
  }
  assert.throws(() => new MelStream({ ...model.hparams.pre, normalize: 'per_feature' }, model.melWeights), /not frame-local/);
});
