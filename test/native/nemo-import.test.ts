// `.nemo` import without Python (issue 46, item 5): a .nemo our writer makes from a generated model
// (tar, PyTorch zip checkpoint with a pickled state_dict, SentencePiece model, OmegaConf YAML)
// converts to a GGUF that decodes exactly as the converter-equivalent parakeet.cpp file, on every
// architecture and for F32, F16 and Q8_0 matmul weights; `parakeet import-nemo` does the same and
// validates the result with the engine.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { importNemo } from '../../app/main/models/nemo/nemo-import.js';
import type { DecoderHead, ValidateModel } from '../../app/main/models/types.js';
import { Model } from '../../native/index.js';
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

/** The engine itself as the model manager's validator (the app's check before an import is listed). */
const engineValidate: ValidateModel = async (path) => {
  const model = await Model.load(path, { threads: 1 });
  try {
    const info = model.info();
    return { architecture: info.arch, decoders: info.decoders as DecoderHead[], name: info.name, vocabSize: info.vocabSize };
  } finally {
    model.dispose();
  }
};

describe('Models: importing a .nemo', () => {
  test('lists it as an installed model the engine loads; a hostile one is refused and nothing is listed', async () => {
    const source = join(dir, 'models.gguf');
    generateModel(source, { preset: 'tiny', arch: 'hybrid_rnnt_ctc', label: 'my-finetune' });
    const nemo = join(dir, 'my-finetune.nemo');
    writeNemoArchive(source, nemo);
    const h = await makeManager(null, testCatalog([{ slug: 'a' }]), { validateModel: engineValidate });
    try {
      const installed = await h.manager.importFile(nemo);
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
      h.manager.on('importProgress', ({ path, fraction }) => {
        assert.equal(path, second);
        seen.push(fraction);
        if (fraction > 0.3) assert.equal(h.manager.cancelImport(), true);
      });
      await assert.rejects(h.manager.importFile(second), (e: { code?: string }) => e.code === 'CANCELLED');
      assert.ok(seen.length > 0 && seen.every((f, i) => f > 0 && f <= 1 && (i === 0 || f >= seen[i - 1])), JSON.stringify(seen));
      assert.equal(h.manager.cancelImport(), false, 'nothing runs any more');
      assert.deepEqual((await h.manager.listInstalled()).map((m) => m.id), [installed.id]);
    } finally {
      await h.cleanup();
    }
  });
});
