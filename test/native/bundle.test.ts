// parakeet.cpp bundle GGUFs (general.architecture "parakeet-bundle"): the ASR component loads through
// its prefix and decodes exactly as its single-model file on every architecture, its content digest
// is verified, info lists the components, and bundles without exactly one ASR component, of a newer
// version, or damaged are refused by name (issue 46, item 2).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model } from '../../native/index.js';
import { readGguf } from '../support/gguf/reader.js';
import { damageTensor, writeBundle, writeSileroStandIn } from '../support/model/bundle.js';
import { generateModel } from '../support/model/generate.js';
import { writeNvidiaSchema } from '../support/model/nvidia-schema.js';
import { ARCHS } from '../support/model/options.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { parakeet } from './helpers/cli.js';
import { ONE_THREAD, rejectsWithCode } from './helpers/engine.js';
import { assertSameDecoding } from './helpers/same-decoding.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('bundle');
const silero = join(dir, 'silero.gguf');
writeSileroStandIn(silero);
const pcm = (): Float32Array => speechSamples(dir, seconds(4));

describe('a parakeet.cpp bundle', () => {
  for (const arch of ARCHS) {
    test(`${arch}: the asr component decodes as its own file`, async () => {
      const single = join(dir, `${arch}.gguf`);
      generateModel(single, { preset: 'tiny', arch, seed: 3 });
      const bundle = join(dir, `${arch}.bundle.gguf`);
      writeBundle(bundle, `bundle-${arch}`, [{ name: 'asr', kind: 'asr', file: single }, { name: 'vad', kind: 'vad', file: silero }]);
      await assertSameDecoding(single, bundle, pcm());
    });
  }

  test('an NVIDIA-schema file as the asr component decodes as its parakeet.cpp twin', async () => {
    const single = join(dir, 'nested.gguf');
    const nvidia = join(dir, 'nested.asr.gguf');
    generateModel(single, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 5 });
    writeNvidiaSchema(single, nvidia, { weightType: 'as-source' });
    const bundle = join(dir, 'nested.bundle.gguf');
    writeBundle(bundle, 'nested', [{ name: 'speech', kind: 'asr', file: nvidia }]);
    await assertSameDecoding(single, bundle, pcm());
  });

  test('info and `parakeet info` list the components, the loaded one marked', async () => {
    const single = join(dir, 'listed.gguf');
    generateModel(single, { preset: 'tiny', arch: 'tdt' });
    const bundle = join(dir, 'listed.bundle.gguf');
    writeBundle(bundle, 'listed', [
      { name: 'asr', kind: 'asr', file: single, license: 'CC-BY-4.0', source: 'nvidia/parakeet-tdt-0.6b-v3' },
      { name: 'vad', kind: 'vad', file: silero, license: 'MIT', source: 'https://github.com/snakers4/silero-vad' },
    ]);
    const model = await Model.load(bundle, ONE_THREAD);
    try {
      const info = model.info();
      assert.match(info.schema, /^parakeet\.cpp bundle/);
      assert.deepEqual(
        info.components.map((c) => [c.name, c.kind, c.license, c.source, c.loaded]),
        [
          ['asr', 'asr', 'CC-BY-4.0', 'nvidia/parakeet-tdt-0.6b-v3', true],
          ['vad', 'vad', 'MIT', 'https://github.com/snakers4/silero-vad', false],
        ],
      );
      assert.equal(info.components[1].tensors, 1);
      assert.equal(info.components[1].bytes, 256 * 258 * 4);
      assert.equal(info.components[0].tensors, readGguf(single).tensors.size);
    } finally {
      model.dispose();
    }
    const cli = parakeet(['info', bundle]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /component: {4}asr \(asr\) \[loaded\]: \d+ tensors/);
    assert.match(cli.stdout, /component: {4}vad \(vad\): 1 tensors, .*licence MIT/);
  });

  test('a damaged asr component is refused; damage in another component does not stop the load', async () => {
    const single = join(dir, 'damaged.gguf');
    generateModel(single, { preset: 'tiny', arch: 'ctc' });
    const bundle = join(dir, 'damaged.bundle.gguf');
    writeBundle(bundle, 'damaged', [{ name: 'asr', kind: 'asr', file: single }, { name: 'vad', kind: 'vad', file: silero }]);
    damageTensor(bundle, 'vad.vad16k.stft.forward_basis_buffer');
    (await Model.load(bundle, ONE_THREAD)).dispose();
    damageTensor(bundle, 'asr.encoder.layers.0.norm_out.weight');
    await rejectsWithCode(Model.load(bundle, ONE_THREAD), 'MODEL_INVALID', /bundle component 'asr' is damaged: its tensors hash to [0-9a-f]{64}/);
  });

  test('without exactly one asr component, or of a newer version: refused by name', async () => {
    const single = join(dir, 'refused.gguf');
    generateModel(single, { preset: 'tiny', arch: 'ctc' });
    const vadOnly = join(dir, 'vad-only.bundle.gguf');
    writeBundle(vadOnly, 'vad-only', [{ name: 'vad', kind: 'vad', file: silero }]);
    await rejectsWithCode(Model.load(vadOnly, ONE_THREAD), 'MODEL_INVALID', /holds no speech-recognition component, only vad \(vad\)/);
    const two = join(dir, 'two.bundle.gguf');
    writeBundle(two, 'two', [{ name: 'asr', kind: 'asr', file: single }, { name: 'asr2', kind: 'asr', file: single }]);
    await rejectsWithCode(Model.load(two, ONE_THREAD), 'MODEL_INVALID', /more than one speech-recognition component \(asr \(asr\), asr2 \(asr\)\)/);
    const newer = join(dir, 'v2.bundle.gguf');
    writeBundle(newer, 'v2', [{ name: 'asr', kind: 'asr', file: single }], { version: 2 });
    await rejectsWithCode(Model.load(newer, ONE_THREAD), 'MODEL_INVALID', /parakeet\.bundle\.version = 2: this engine reads parakeet\.cpp bundle format version 1/);
  });
});
