// Loading the cache-aware streaming families: presets and the language prompt in ModelInfo, the causal
// subsampling's 17 frequency bins for 128 mels (spec Corrections 1), and MODEL_INVALID for prompt and
// preset keys that disagree with themselves.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Model } from '../../native/index.js';
import { gv } from '../support/gguf/values.js';
import { GgufValueType } from '../support/gguf/types.js';
import { generateModel } from '../support/model/generate.js';
import type { ModelOptionsInput } from '../support/model/options.js';
import { ONE_THREAD, rejectsWithCode } from './helpers/engine.js';
import { familyModel } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('stream-load');

test('the three families load with their presets, prompt and locales; causal subsampling of 128 mels keeps 17 bins', async () => {
  const expected = {
    eou: { presets: [[70, 1]], prompt: false },
    'nemotron-en': { presets: [[70, 1], [70, 0], [70, 6], [70, 13]], prompt: false },
    'nemotron-3.5': { presets: [[56, 3], [56, 0], [56, 6], [56, 13]], prompt: true },
  } as const;
  for (const [family, want] of Object.entries(expected) as [keyof typeof expected, (typeof expected)[keyof typeof expected]][]) {
    const d = familyModel(dir, family, 'q8_0');
    const out = d.tensors.find((t) => t.name === 'encoder.pre_encode.out.weight');
    assert.deepEqual(out?.ne, [d.options.subsamplingChannels * 17, d.options.dModel], `${family}: the generator writes C·17 inputs`);
    const model = await Model.load(d.path, ONE_THREAD);
    const info = model.info();
    model.dispose();
    assert.equal(info.streaming, true, family);
    assert.deepEqual(info.attContextPresets, want.presets, family);
    assert.deepEqual([info.attContextLeft, info.attContextRight], want.presets[0], `${family}: the default preset`);
    assert.equal(info.hasPrompt, want.prompt, family);
    assert.deepEqual(info.languages, want.prompt ? ['auto', 'en-US', 'de-DE', 'fr-FR', 'es-ES'] : []);
    assert.equal(info.defaultLanguage, want.prompt ? 'auto' : '');
  }
});

async function refused(name: string, input: ModelOptionsInput, message: RegExp): Promise<void> {
  const path = join(dir, `${name}.gguf`);
  generateModel(path, { preset: 'tiny', seed: 10, ...input });
  try {
    await rejectsWithCode(Model.load(path, ONE_THREAD), 'MODEL_INVALID', message);
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}

test('prompt and preset keys that disagree with the file are MODEL_INVALID, naming the key', async () => {
  const prompt: ModelOptionsInput = { family: 'nemotron-3.5' };
  await refused('values-short', { ...prompt, extraKv: [{ key: 'parakeet.prompt.dictionary.values', value: gv.arr(GgufValueType.INT32, [0, 5]) }] },
    /parakeet.prompt.dictionary.values holds 2 entries for 5 keys/);
  await refused('index-range', { ...prompt, extraKv: [{ key: 'parakeet.prompt.dictionary.values', value: gv.arr(GgufValueType.INT32, [0, 5, 2, 7, 300]) }] },
    /parakeet.prompt.dictionary.values\[4\] = 300 is outside 0..127/);
  await refused('default-lang', { ...prompt, extraKv: [{ key: 'parakeet.prompt.default_lang', value: gv.str('xx-XX') }, {
    key: 'parakeet.prompt.dictionary.keys', value: gv.arrStr(['en-US', 'de-DE', 'fr-FR', 'es-ES', 'it-IT']),
  }] }, /parakeet.prompt.default_lang = 'xx-XX' names no entry/);
  await refused('presets-odd', { family: 'nemotron-en', extraKv: [{ key: 'parakeet.encoder.att_context_presets', value: gv.arr(GgufValueType.INT32, [70, 1, 70]) }] },
    /att_context_presets holds 3 numbers/);
  // The bins follow the causal flag: a file whose pre_encode.out has a causal model's 17 bins of 128 mels
  // but says it is not causal (16 bins) is refused by shape.
  await refused('bins-follow-causal-flag', { family: 'eou', extraKv: [{ key: 'parakeet.encoder.causal_downsampling', value: gv.bool(false) }] },
    /tensor 'encoder.pre_encode.out.weight' has shape \[272, 64\], expected \[256, 64\]/);
});
