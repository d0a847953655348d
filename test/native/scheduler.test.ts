// The ggml_backend_sched path (taken when a device lacks a kernel for some op).
// This machine has no GPU, so the path is forced with alwaysSchedule on the CPU:
// it must give the same results as the default gallocr path and report the
// devices that ran.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Model } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { fmt, relL2 } from './helpers/compare.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('scheduler');
const path = join(dir, 'small.gguf');
generateModel(path, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 12 });

test('graphs through ggml_backend_sched give the results of the gallocr path', async () => {
  const pcm = speechSamples(dir, seconds(20));  // long enough for several subsampling tiles
  const direct = await Model.load(path, { threads: 1 });
  const scheduled = await Model.load(path, { threads: 1, alwaysSchedule: true });
  try {
    assert.equal(direct.info().scheduled, false);
    assert.equal(scheduled.info().scheduled, true);
    for (const decoder of ['tdt', 'ctc'] as const) {
      const a = await direct.transcribe(pcm, { decoder, captureEncoder: true });
      const b = await scheduled.transcribe(pcm, { decoder, captureEncoder: true });
      const rel = relL2(a.encoder!.data, b.encoder!.data, a.encoder!.data.length);
      assert.ok(rel < 1e-6, `${decoder}: encoder outputs differ (rel L2 ${fmt(rel)})`);
      assert.deepEqual(b.tokens.map((t) => t.id), a.tokens.map((t) => t.id), `${decoder}: tokens`);
      assert.equal(b.text, a.text);
      assert.deepEqual(b.devicesRan, ['CPU'], 'the scheduler reports the device that executed the nodes');
    }
  } finally {
    direct.dispose();
    scheduled.dispose();
  }
});
