// A Streaming Sortformer diarizer in NVIDIA NeMo-Speech.cpp's schema (general.architecture "sortformer",
// conversion/diarization.py's keys and names) diarizes exactly as the same weights in the parakeet.cpp
// schema, offline and streaming; what the engine cannot run in it is refused by name.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Model } from '../../native/index.js';
import { Diarizer } from '../../native/diarizer.js';
import { concat, quiet, speechLike } from '../support/audio/signals.js';
import { gv } from '../support/gguf/values.js';
import { readGguf } from '../support/gguf/reader.js';
import { writeNvidiaSortformer } from '../support/model/nvidia-sortformer.js';
import { generateSortformer } from '../support/model/sortformer.js';
import { rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('sortformer-nvidia-schema');
const ours = join(dir, 'sortformer-parakeet-cpp.gguf');
const theirs = join(dir, 'sortformer-nemo-speech-cpp.gguf');
generateSortformer(ours);
writeNvidiaSortformer(ours, theirs);
// 6.3 s: 13 streaming chunks, several speaker-cache compressions (the tiny model's geometry).
const pcm = concat(speechLike(2.1, 21), quiet(0.7, 22), speechLike(3.5, 23));
const [a, b] = [Diarizer.load(ours, { threads: 1 }), Diarizer.load(theirs, { threads: 1 })];
after(async () => {
  (await a).dispose();
  (await b).dispose();
});

test('the file really is in NeMo-Speech.cpp\'s schema: its architecture, keys and tensor names', () => {
  const f = readGguf(theirs);
  assert.equal(f.kv.get('general.architecture')?.value, 'sortformer');
  assert.ok(f.kv.has('sortformer.transformer.hidden_size') && f.kv.has('sortformer.scoring.sil_threshold') && !f.kv.has('parakeet.arch'));
  for (const name of ['encoder_proj.weight', 'head.single_hidden_to_spks.weight', 'transformer.layers.0.first_sub_layer.out_projection.weight',
    'preprocessor.fb', 'encoder.pos_enc.pe']) assert.ok(f.tensors.has(name), name);
  assert.ok(![...f.tensors.keys()].some((n) => n.startsWith('sortformer_modules.') || n.startsWith('transformer_encoder.')));
});

test('its geometry and speakers read as the parakeet.cpp file\'s', async () => {
  const [x, y] = [(await a).info(), (await b).info()];
  for (const key of ['nSpeakers', 'frameSec', 'sampleRate', 'chunkLen', 'chunkLeftContext', 'chunkRightContext', 'spkcacheLen', 'fifoLen',
    'spkcacheUpdatePeriod', 'encoderLayers', 'transformerLayers', 'onsetThreshold', 'offsetThreshold'] as const) {
    assert.equal(y[key], x[key], key);
  }
});

for (const streaming of [false, true]) {
  test(`${streaming ? 'streaming' : 'offline'}: the same activities, bit for bit, from either schema`, async () => {
    const [x, y] = [await (await a).diarize(pcm, { streaming }), await (await b).diarize(pcm, { streaming })];
    assert.ok(x.frames > 70, `frames: ${x.frames}`);
    assert.equal(y.frames, x.frames);
    assert.deepEqual(Array.from(y.activities), Array.from(x.activities));
  });
}

test('a pre-LN transformer head is refused by key; as the speech model the file is named a diarizer', async () => {
  const preLn = join(dir, 'sortformer-pre-ln.gguf');
  writeNvidiaSortformer(ours, preLn, [{ key: 'sortformer.transformer.pre_ln', value: gv.bool(true) }]);
  await rejectsWithCode(Diarizer.load(preLn, { threads: 1 }), 'MODEL_INVALID', /sortformer\.transformer\.pre_ln = true: a pre-LN transformer head/);
  await rejectsWithCode(Model.load(theirs, { threads: 1 }), 'MODEL_INVALID', /speaker-diarization model/);
});
