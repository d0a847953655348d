// `.nemo` import without Python (issue 46, item 5): a .nemo our writer makes from a generated model
// (tar, PyTorch zip checkpoint with a pickled state_dict, SentencePiece model, OmegaConf YAML)
// converts to a GGUF that decodes exactly as the converter-equivalent parakeet.cpp file, on every
// architecture and for F32, F16 and Q8_0 matmul weights; `parakeet import-nemo` and the Models view
// do the same and validate the result with the engine's load and its CPU known-answer self-test.
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { NEMO_DEFAULT_WEIGHTS } from '../../app/ipc/contract.js';
import { EngineHost } from '../../app/main/engine/engine-host.js';
import { nullLogger } from '../../app/main/log.js';
import { engineValidator } from '../../app/main/model-validation.js';
import { importNemo } from '../../app/main/models/nemo/nemo-import.js';
import { readGguf } from '../support/gguf/reader.js';
import { GgmlType } from '../support/gguf/types.js';
import { makeManager, testCatalog } from '../unit/models/helpers.js';
import { generateModel } from '../support/model/generate.js';
import { writeNemoArchive } from '../support/model/nemo-archive.js';
import { ARCHS } from '../support/model/options.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { parakeet } from './helpers/cli.js';
import { assertSameDecoding } from './helpers/same-decoding.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('nemo');
const pcm = (): Float32Array => speechSamples(dir, seconds(4));

describe('a .nemo converts to the parakeet.cpp GGUF of the same weights', () => {
  for (const arch of ARCHS) {
    test(`${arch}: same tokens and text as the generated file`, async () => {
      const source = join(dir, `${arch}.gguf`);
      generateModel(source, { preset: 'tiny', arch, seed: 21 });
      const nemo = join(dir, `${arch}.nemo`);
      writeNemoArchive(source, nemo);
      const out = join(dir, `${arch}.imported.gguf`);
      const progress: number[] = [];
      const result = await importNemo(nemo, out, { onProgress: (f) => progress.push(f) });
      assert.equal(result.arch, arch);
      assert.equal(progress.at(-1), 1);
      await assertSameDecoding(source, out, pcm());
    });
  }

  for (const weightType of ['f16', 'q8_0'] as const) {
    test(`--type ${weightType}: the same as the converter's ${weightType} file`, async () => {
      const f32 = join(dir, `typed-${weightType}.f32.gguf`);
      const typed = join(dir, `typed-${weightType}.gguf`);
      generateModel(f32, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 4 });
      generateModel(typed, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 4, weightType });
      const nemo = join(dir, `typed-${weightType}.nemo`);
      writeNemoArchive(f32, nemo);
      const out = join(dir, `typed-${weightType}.imported.gguf`);
      await importNemo(nemo, out, { weightType });
      await assertSameDecoding(typed, out, pcm());
    });
  }

  test('`parakeet import-nemo` writes a model the engine loads; a cancelled import leaves nothing', async () => {
    const source = join(dir, 'cli.gguf');
    generateModel(source, { preset: 'tiny', arch: 'tdt' });
    const nemo = join(dir, 'cli.nemo');
    writeNemoArchive(source, nemo);
    const out = join(dir, 'cli.imported.gguf');
    const run = parakeet(['import-nemo', nemo, out, '--type', 'q8_0']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /wrote .*cli\.imported\.gguf: tdt, 2 layers, d_model 64, 96 pieces/);
    const cancelled = join(dir, 'cancelled.gguf');
    const controller = new AbortController();
    await assert.rejects(
      importNemo(nemo, cancelled, { signal: controller.signal, onProgress: (f) => f > 0.2 && controller.abort() }),
      /the import was cancelled/,
    );
    assert.ok(!existsSync(cancelled) && !existsSync(`${cancelled}.partial`), 'nothing written');
  });
});

/** A .nemo of diverged weights: finite (the engine's load check passes them) but so large that the encoder overflows. */
function divergedNemo(name: string): string {
  const source = join(dir, `${name}.gguf`);
  generateModel(source, { preset: 'tiny', arch: 'tdt', weightType: 'f32', seed: 9 });
  const file = readGguf(source);
  const tensor = file.tensors.get('encoder.layers.0.feed_forward1.linear1.weight');
  assert.ok(tensor && tensor.type === GgmlType.F32);
  const fd = openSync(source, 'r+');
  try {
    const huge = new Float32Array(tensor.byteSize / 4).fill(3e38);
    writeSync(fd, new Uint8Array(huge.buffer), 0, tensor.byteSize, file.dataOffset + tensor.offset);
  } finally {
    closeSync(fd);
  }
  const nemo = join(dir, `${name}.nemo`);
  writeNemoArchive(source, nemo);
  return nemo;
}

describe('the converted model runs the engine\'s self-test before it is reported done', () => {
  test('`parakeet import-nemo`: a model that loads but computes garbage is refused and nothing is left', () => {
    const nemo = divergedNemo('cli-diverged');
    const out = join(dir, 'cli-diverged.gguf');
    const run = parakeet(['import-nemo', nemo, out]);
    assert.notEqual(run.status, 0, run.stderr);
    assert.match(run.stderr, /MODEL_INVALID.*the converted model failed the engine's self-test: .*NaN or infinity/);
    assert.ok(!existsSync(out) && !existsSync(`${out}.partial`), 'nothing written');
  });
});

describe('Models: importing a .nemo', () => {
  // The app's own validator: the engine (inline, as in `engineMode: inline`) loads the file and, for a
  // converted .nemo, runs its CPU self-test.
  const host = new EngineHost({ mode: 'inline', log: nullLogger });
  before(() => host.start());
  after(() => host.dispose());

  test('lists it as an installed model the engine loads; a hostile one is refused and nothing is listed', async () => {
    const source = join(dir, 'models.gguf');
    generateModel(source, { preset: 'tiny', arch: 'hybrid_rnnt_ctc', label: 'my-finetune' });
    const nemo = join(dir, 'my-finetune.nemo');
    writeNemoArchive(source, nemo);
    const h = await makeManager(null, testCatalog([{ slug: 'a' }]), { validateModel: engineValidator(host) });
    try {
      const installed = await h.manager.importFile(nemo, { nemoWeights: 'f32' });
      assert.equal(installed.id, 'imported/my-finetune');
      assert.equal(installed.architecture, 'hybrid_rnnt_ctc');
      assert.equal(installed.displayName, 'my-finetune (imported)');
      await assertSameDecoding(source, join(h.modelsDir, installed.file), pcm());

      const traversal = join(dir, 'traversal.nemo');
      writeNemoArchive(source, traversal, { extraMembers: [{ name: '../x', data: Buffer.from('x') }] });
      await assert.rejects(h.manager.importFile(traversal), (e: { code?: string; message?: string }) => {
        assert.equal(e.code, 'MODEL_INVALID');
        assert.match(e.message ?? '', /path traversal/);
        return true;
      });
      assert.deepEqual((await h.manager.listInstalled()).map((m) => m.id), [installed.id]);

      // Progress as the conversion goes, and Cancel (models:cancelImport) stops it: nothing listed or left.
      const second = join(dir, 'second.nemo');
      writeNemoArchive(source, second);
      const seen: number[] = [];
      const off = h.manager.on('importProgress', ({ path, fraction }) => {
        assert.equal(path, second);
        seen.push(fraction);
        if (fraction > 0.3) assert.equal(h.manager.cancelImport(), true);
      });
      await assert.rejects(h.manager.importFile(second), (e: { code?: string }) => e.code === 'CANCELLED');
      off();
      assert.ok(seen.length > 0 && seen.every((f, i) => f > 0 && f <= 1 && (i === 0 || f >= seen[i - 1])), JSON.stringify(seen));
      assert.equal(h.manager.cancelImport(), false, 'nothing runs any more');
      assert.deepEqual((await h.manager.listInstalled()).map((m) => m.id), [installed.id]);
    } finally {
      await h.cleanup();
    }
  });

  test('weights as chosen (Q8_0 by default, F16 on request) decode as the converter\'s file of that type', async () => {
    const f32 = join(dir, 'typed.f32.gguf');
    generateModel(f32, { preset: 'tiny', arch: 'tdt', seed: 6, label: 'typed' });
    const nemo = join(dir, 'typed.nemo');
    writeNemoArchive(f32, nemo);
    const h = await makeManager(null, testCatalog([{ slug: 'a' }]), { validateModel: engineValidator(host) });
    try {
      for (const [choice, weightType] of [[undefined, NEMO_DEFAULT_WEIGHTS], ['f16', 'f16']] as const) {
        const installed = await h.manager.importFile(nemo, choice ? { nemoWeights: choice } : {});
        const file = join(h.modelsDir, installed.file);
        const types = new Set([...readGguf(file).tensors.values()].filter((t) => t.name.endsWith('linear1.weight')).map((t) => t.type));
        assert.deepEqual([...types], [weightType === 'q8_0' ? GgmlType.Q8_0 : GgmlType.F16], `${choice ?? 'default'}: matmul weights stored as ${weightType}`);
        const converter = join(dir, `typed.${weightType}.gguf`);
        generateModel(converter, { preset: 'tiny', arch: 'tdt', seed: 6, label: 'typed', weightType });
        await assertSameDecoding(converter, file, pcm());
      }
    } finally {
      await h.cleanup();
    }
  });

  test('a model that fails the self-test is refused with what the test found, and nothing is listed or left', async () => {
    const nemo = divergedNemo('models-diverged');
    const h = await makeManager(null, testCatalog([{ slug: 'a' }]), { validateModel: engineValidator(host) });
    try {
      // F32: the weights as they are, finite, so the load passes them and only the self-test can tell.
      // (Q8_0 would round their scale to an infinite F16, which the load itself refuses.)
      await assert.rejects(h.manager.importFile(nemo, { nemoWeights: 'f32' }), (e: { code?: string; message?: string }) => {
        assert.equal(e.code, 'MODEL_INVALID');
        assert.match(e.message ?? '', /the converted model failed the engine's self-test: .*NaN or infinity/);
        return true;
      });
      assert.deepEqual(await h.manager.listInstalled(), []);
      assert.deepEqual(readdirSync(join(h.modelsDir, '.downloads')).filter((f) => f.endsWith('.gguf')), [], 'no converted file left behind');
    } finally {
      await h.cleanup();
    }
  });
});
