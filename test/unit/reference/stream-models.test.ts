// The generator's streaming families, read back from the GGUF: every streaming and prompt key with
// its spec type and the default preset's values (spec §1.2, Corrections 1–2, 6), the prompt kernel
// and causal subsampling shapes, the special pieces, and the reference reading them (F' = 17).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadSubsampling, readHParams, streamSchedule, streamingPresets } from '../../reference/index.js';
import { readGguf } from '../../support/gguf/reader.js';
import { type GgufValue, GgufValueType } from '../../support/gguf/types.js';
import { generateModel } from '../../support/model/generate.js';
import { FAMILY_TEST_SEEDS, STREAMING_FAMILIES, type StreamingFamily } from '../../support/model/streaming.js';
import { weightSourceFromFile } from '../../support/model/weights-source.js';
import { scratchDir } from '../gguf/tmp.js';

const dir = scratchDir('stream-models');
const I32 = GgufValueType.INT32;

/** The default preset [70, 1] of EOU-120M and Nemotron-EN: 9 then 16 mel frames, 2 encoder frames per chunk. */
const PRESET_70_1: Record<string, GgufValue> = {
  'parakeet.encoder.att_context_left': { type: I32, value: 70 },
  'parakeet.encoder.att_context_right': { type: I32, value: 1 },
  'parakeet.streaming.chunk_size': { type: GgufValueType.ARRAY, itemType: I32, value: [9, 16] },
  'parakeet.streaming.shift_size': { type: GgufValueType.ARRAY, itemType: I32, value: [9, 16] },
  'parakeet.streaming.last_channel_cache_size': { type: I32, value: 70 },
  'parakeet.streaming.valid_out_len': { type: I32, value: 2 },
};

/** Expected value (with its GGUF type) of every streaming key, per family: what parakeet.cpp's converter writes. */
const STREAMING_KEYS: Record<StreamingFamily, Record<string, GgufValue>> = {
  eou: PRESET_70_1,
  'nemotron-en': {
    ...PRESET_70_1,
    'parakeet.encoder.att_context_presets': { type: GgufValueType.ARRAY, itemType: I32, value: [70, 1, 70, 0, 70, 6, 70, 13] },
  },
  'nemotron-3.5': {
    'parakeet.encoder.att_context_left': { type: I32, value: 56 },
    'parakeet.encoder.att_context_right': { type: I32, value: 3 },
    'parakeet.encoder.att_context_presets': { type: GgufValueType.ARRAY, itemType: I32, value: [56, 3, 56, 0, 56, 6, 56, 13] },
    'parakeet.streaming.chunk_size': { type: GgufValueType.ARRAY, itemType: I32, value: [25, 32] },
    'parakeet.streaming.shift_size': { type: GgufValueType.ARRAY, itemType: I32, value: [25, 32] },
    'parakeet.streaming.last_channel_cache_size': { type: I32, value: 56 },
    'parakeet.streaming.valid_out_len': { type: I32, value: 4 },
    'parakeet.prompt.present': { type: GgufValueType.BOOL, value: true },
    'parakeet.prompt.num_prompts': { type: GgufValueType.UINT32, value: 128 },
    'parakeet.prompt.default_lang': { type: GgufValueType.STRING, value: 'auto' },
    'parakeet.prompt.dictionary.keys': { type: GgufValueType.ARRAY, itemType: GgufValueType.STRING, value: ['auto', 'en-US', 'de-DE', 'fr-FR', 'es-ES'] },
    'parakeet.prompt.dictionary.values': { type: GgufValueType.ARRAY, itemType: I32, value: [0, 5, 2, 7, 3] },
  },
};

/** Keys every family writes with the same value. */
const COMMON_KEYS: Record<string, GgufValue> = {
  'parakeet.arch': { type: GgufValueType.STRING, value: 'rnnt' },
  'parakeet.encoder.att_context_style': { type: GgufValueType.STRING, value: 'chunked_limited' },
  'parakeet.encoder.causal_downsampling': { type: GgufValueType.BOOL, value: true },
  'parakeet.encoder.conv_causal': { type: GgufValueType.BOOL, value: true },
  'parakeet.encoder.conv_norm_type': { type: GgufValueType.STRING, value: 'layer_norm' },
  'parakeet.preprocessor.normalize': { type: GgufValueType.STRING, value: 'NA' },
  'parakeet.streaming.cache_drop_size': { type: I32, value: 0 },
  'parakeet.streaming.pre_encode_cache_size': { type: GgufValueType.ARRAY, itemType: I32, value: [0, 9] },
  'parakeet.streaming.drop_extra_pre_encoded': { type: I32, value: 2 },
};

for (const family of STREAMING_FAMILIES) {
  describe(`generated ${family} model`, () => {
    const path = join(dir, `${family}.gguf`);
    generateModel(path, { family, seed: FAMILY_TEST_SEEDS[family] });
    const file = readGguf(path);

    test('writes every streaming (and prompt) key with its type and the default preset\'s values', () => {
      for (const [key, want] of Object.entries({ ...COMMON_KEYS, ...STREAMING_KEYS[family] })) {
        assert.deepEqual(file.kv.get(key), want, key);
      }
      if (family === 'eou') assert.equal(file.kv.has('parakeet.encoder.att_context_presets'), false, 'one preset: no presets list');
      if (family !== 'nemotron-3.5') assert.equal([...file.kv.keys()].some((k) => k.startsWith('parakeet.prompt.')), false);
    });

    test('tensors: causal subsampling C·17, prompt kernel, biases and LSTM layers as in the checkpoint', () => {
      const ne = (name: string): readonly number[] | undefined => file.tensors.get(name)?.ne;
      assert.deepEqual(ne('encoder.pre_encode.out.weight'), [16 * 17, 64], '128 mels, causal: 17 frequency bins');
      const hasPrompt = family === 'nemotron-3.5';
      assert.deepEqual(ne('prompt_kernel.0.weight'), hasPrompt ? [64 + 128, 128] : undefined);
      assert.deepEqual(ne('prompt_kernel.0.bias'), hasPrompt ? [128] : undefined);
      assert.deepEqual(ne('prompt_kernel.2.weight'), hasPrompt ? [128, 64] : undefined);
      assert.deepEqual(ne('prompt_kernel.2.bias'), hasPrompt ? [64] : undefined);
      assert.equal(file.tensors.has('encoder.layers.0.self_attn.linear_q.bias'), family === 'eou');
      assert.equal(file.tensors.has('decoder.prediction.dec_rnn.lstm.weight_ih_l1'), family !== 'eou');
      assert.equal(file.tensors.has('encoder.layers.0.conv.batch_norm.running_mean'), false, 'layer-norm conv module');
    });

    test('special pieces take the last ids; the reference reads the model and its presets', () => {
      const w = weightSourceFromFile(file);
      const hp = readHParams(w);
      const tail = hp.pieces.slice(-4);
      if (family === 'eou') assert.deepEqual(hp.pieces.slice(-2), ['<EOU>', '<EOB>']);
      if (family === 'nemotron-3.5') assert.deepEqual(tail, ['<en-US>', '<de-DE>', '<fr-FR>', '<es-ES>']);
      if (family === 'nemotron-en') assert.ok(tail.every((p) => !p.startsWith('<')));
      assert.equal(loadSubsampling(w, hp).freqOut, 17);
      const presets = streamingPresets(w, hp);
      assert.equal(presets.length, family === 'eou' ? 1 : 4);
      const s = streamSchedule(w, hp);
      assert.deepEqual(s.preset, presets[0]);
      for (const [l, r] of presets) {
        const other = streamSchedule(w, hp, [l, r]);
        assert.deepEqual(other.chunkMel, [1 + 8 * r, 8 * (r + 1)]);
        assert.equal(other.chunkFrames, r + 1);
        assert.equal(other.cacheFrames, l);
      }
    });
  });
}
