// Shapes at the edge of what the schema accepts must either load AND transcribe,
// or be refused at load with MODEL_INVALID — never abort the process inside
// ggml at the first transcription (the encoder graph's node budget).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Model } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('limits');

test('a deep model with a long depthwise kernel within the graph budget loads and transcribes', async () => {
  const path = join(dir, 'deep.gguf');
  generateModel(path, { preset: 'tiny', arch: 'ctc', nLayers: 120, convKernel: 31, seed: 3 });
  const model = await Model.load(path, { threads: 1 });
  try {
    assert.equal(model.info().nLayers, 120);
    assert.equal(model.info().convKernel, 31);
    const pcm = new Float32Array(16000 * 3).map((_, i) => 0.2 * Math.sin(i * 0.07));
    const result = await model.transcribe(pcm);
    assert.equal(result.devicesRan.length > 0, true);
  } finally {
    model.dispose();
  }
});

test('a model whose encoder graph would exceed the engine budget is refused at load', async () => {
  const path = join(dir, 'too-deep.gguf');
  generateModel(path, { preset: 'tiny', arch: 'ctc', nLayers: 200, convKernel: 63, seed: 3 });
  await assert.rejects(Model.load(path, { threads: 1 }), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'MODEL_INVALID');
    assert.match(error.message, /200 layers with conv_kernel 63/);
    return true;
  });
});

test('a failed load frees what it allocated (repeated aborted loads do not grow memory)', async () => {
  const path = join(dir, 'convert.gguf');
  generateModel(path, { preset: 'small', arch: 'tdt', seed: 4 });
  // Warm-up: first use of the addon and the allocator.
  const warm = await Model.load(path, { threads: 1, weightType: 'q8_0', mmap: false });
  const weightBytes = warm.info().weightBytes;
  warm.dispose();
  const before = process.memoryUsage().rss;
  const loads = 24;
  // The progress callback reaches this thread after the loader reported it: on a busy machine a
  // load of this small model can finish before the abort lands. Such a load is disposed and
  // another tried; only aborted loads count.
  let aborted = 0;
  let completed = 0;
  while (aborted < loads) {
    const controller = new AbortController();
    const pending = Model.load(path, {
      threads: 1,
      weightType: 'q8_0',
      mmap: false,
      signal: controller.signal,
      onProgress: (f) => {
        if (f > 0.5) controller.abort();  // after the weight buffers exist
      },
    });
    try {
      (await pending).dispose();
      completed++;
      assert.ok(completed <= loads, `${completed} loads finished before their abort landed (${aborted} aborted)`);
    } catch (e) {
      assert.equal((e as { code?: string }).code, 'ABORTED', String(e));
      aborted++;
    }
  }
  const grownBytes = process.memoryUsage().rss - before;
  const leakIfAny = loads * weightBytes;
  console.log(`RSS growth over ${loads} aborted loads: ${(grownBytes / 2 ** 20).toFixed(1)} MiB (a leak would be ~${(leakIfAny / 2 ** 20).toFixed(1)} MiB)`);
  assert.ok(grownBytes < Math.max(16 * 2 ** 20, leakIfAny / 4), `memory grew by ${(grownBytes / 2 ** 20).toFixed(1)} MiB`);
});
