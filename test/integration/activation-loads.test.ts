// One load per activated model: a validated file (import or download, checked
// under a temporary name and renamed) is activated by adopting the model the
// validation loaded, and the CPU self-test's reference is a second state of
// the resident model, not another load. A different file, or a changed file,
// is loaded afresh.
import assert from 'node:assert/strict';
import { copyFileSync, renameSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { generateModel } from '../support/model/generate.js';
import { EngineCoreClient } from '../support/engine-core-client.js';
import { speechLike } from '../unit/app/signals.js';
import { tempDir } from './helpers.js';

const dir = tempDir('activation-loads');
const source = join(dir, 'source.gguf');
generateModel(source, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 3 });
const engine = new EngineCoreClient();
after(() => engine.dispose());

test('validate under a temporary name, rename, activate: one load, and the model transcribes under its final path', async () => {
  const partial = join(dir, 'model.gguf.partial');
  const final = join(dir, 'model.gguf');
  copyFileSync(source, partial);
  const before = engine.loads.length;
  const validated = await engine.request({ op: 'validate', path: partial });
  assert.equal(validated.path, partial);
  renameSync(partial, final);
  const info = await engine.request({ op: 'load', path: final, options: { device: 'cpu', threads: 1 } });
  assert.equal(info.path, final, 'the resident model reports the path it was activated with');
  assert.equal(info.device.device.type, 'cpu');
  const transcript = await engine.request({ op: 'transcribe', pcm: speechLike(1.0, 7), options: {} });
  assert.equal(typeof transcript.text, 'string');
  assert.ok(transcript.durationSec > 0.9);
  const selfTest = await engine.request({ op: 'selfTest', device: 'cpu', trigger: 'manual' });
  assert.equal(selfTest.reference, 'cpu-scheduled');
  assert.equal(selfTest.passed, true, JSON.stringify(selfTest));
  const status = await engine.request({ op: 'status' });
  assert.equal(status.model?.path, final);
  const loads = engine.loads.length - before;
  console.log(`loads per activation: ${loads}`);
  assert.equal(loads, 1, `Model.load calls: ${JSON.stringify(engine.loads.slice(before))}`);
});

test('activating another file, or the same file changed since its validation, loads it again', async () => {
  const a = join(dir, 'a.gguf');
  const b = join(dir, 'b.gguf');
  copyFileSync(source, a);
  copyFileSync(source, b);
  await engine.request({ op: 'validate', path: a });
  let before = engine.loads.length;
  await engine.request({ op: 'load', path: b, options: { device: 'cpu', threads: 1 } });
  assert.equal(engine.loads.length - before, 1, 'b was never validated: loaded');
  await engine.request({ op: 'validate', path: a });
  utimesSync(a, new Date(), new Date(Date.now() + 5000));
  before = engine.loads.length;
  await engine.request({ op: 'load', path: a, options: { device: 'cpu', threads: 1 } });
  assert.equal(engine.loads.length - before, 1, 'a changed after its validation: loaded again');
  assert.deepEqual(engine.loads.at(-1), { path: a, device: 'cpu' });
});

test('an activation with other placement options (weight type) than the validation loads again', async () => {
  const c = join(dir, 'c.gguf');
  copyFileSync(source, c);
  await engine.request({ op: 'validate', path: c });
  const before = engine.loads.length;
  const info = await engine.request({ op: 'load', path: c, options: { device: 'cpu', threads: 1, weightType: 'f32' } });
  assert.equal(engine.loads.length - before, 1);
  assert.equal(info.weightType, 'f32');
});
