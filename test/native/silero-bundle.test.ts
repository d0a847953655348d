// A parakeet.cpp bundle's "vad" component is a VAD the engine loads (issue 46's bundles, issue 40's VAD):
// VadModel.load on the bundle reads its Silero through the component's prefix and gives the same
// probabilities as the Silero GGUF the component was made from, and says which component it came from;
// a bundle without a VAD component, with two, or with a damaged one is refused by name.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { VadModel } from '../../native/index.js';
import { bundledVadModel } from '../../app/main/vad/bundled-silero.js';
import { REPO_ROOT } from '../support/audio/digits.js';
import { gappedDigits } from '../support/audio/gapped-digits.js';
import { damageTensor, writeBundle } from '../support/model/bundle.js';
import { generateModel } from '../support/model/generate.js';
import { rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('silero-bundle');
const silero = await bundledVadModel(join(REPO_ROOT, '.cache', 'vad'), REPO_ROOT);
const asr = join(dir, 'asr.gguf');
generateModel(asr, { preset: 'tiny', arch: 'ctc', seed: 5 });
const audio = gappedDigits(6, 0xb0d1).pcm;

async function probsOf(path: string): Promise<{ probs: Float32Array; component: string }> {
  const model = await VadModel.load(path);
  try {
    const stream = model.createStream(16000);
    const probs = Float32Array.from([...await stream.process(audio), ...await stream.flush()]);
    stream.dispose();
    return { probs, component: model.info().bundleComponent };
  } finally {
    model.dispose();
  }
}

test('the bundle\'s vad component loads as the VAD: the same probabilities as its Silero GGUF, and says where it came from', async () => {
  const bundle = join(dir, 'asr-vad.bundle.gguf');
  writeBundle(bundle, 'asr+vad', [{ name: 'asr', kind: 'asr', file: asr }, { name: 'silero', kind: 'vad', file: silero, license: 'MIT' }]);
  const own = await probsOf(silero);
  const bundled = await probsOf(bundle);
  assert.equal(own.component, '');
  assert.equal(bundled.component, 'silero');
  assert.deepEqual(bundled.probs, own.probs);
  assert.ok(own.probs.some((p) => p > 0.9) && own.probs.some((p) => p < 0.1), 'the clip has speech and gaps');
});

test('a bundle without a vad component, with two, or with a damaged one is refused by name', async () => {
  const asrOnly = join(dir, 'asr-only.bundle.gguf');
  writeBundle(asrOnly, 'asr-only', [{ name: 'asr', kind: 'asr', file: asr }]);
  await rejectsWithCode(VadModel.load(asrOnly), 'MODEL_INVALID', /holds no voice-activity \(vad\) component, only asr \(asr\)/);
  const two = join(dir, 'two-vads.bundle.gguf');
  writeBundle(two, 'two', [{ name: 'a', kind: 'vad', file: silero }, { name: 'b', kind: 'vad', file: silero }]);
  await rejectsWithCode(VadModel.load(two), 'MODEL_INVALID', /more than one voice-activity \(vad\) component/);
  const damaged = join(dir, 'damaged.bundle.gguf');
  writeBundle(damaged, 'damaged', [{ name: 'asr', kind: 'asr', file: asr }, { name: 'vad', kind: 'vad', file: silero }]);
  damageTensor(damaged, 'vad.vad16k.stft.forward_basis_buffer');
  await rejectsWithCode(VadModel.load(damaged), 'MODEL_INVALID', /bundle component 'vad' is damaged/);
});
