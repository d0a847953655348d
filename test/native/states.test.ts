// A model's weights apart from its run states (Model.createState): states of
// one model transcribe at the same time and agree with the model's default
// state; one state runs one call at a time (BUSY); disposing a state leaves
// the model usable; disposing the model aborts and frees its states.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Model, type TranscribeResult } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { noise, seconds, tone } from './helpers/audio.js';
import { ONE_THREAD, rejectsWithCode, throwsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('states');
const tdt = join(dir, 'tdt.gguf');
const small = join(dir, 'small.gguf');
generateModel(tdt, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 5 });
generateModel(small, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 5 });
const open: Model[] = [];
after(() => {
  for (const m of open) m.dispose();
});
async function load(path: string): Promise<Model> {
  const m = await Model.load(path, ONE_THREAD);
  open.push(m);
  return m;
}
const phrase = tone(seconds(2), 440, 0.3);

test('two states of one model transcribe concurrently, and match the default state token for token', async () => {
  const model = await load(tdt);
  const a = model.createState({ threads: 1 });
  const b = model.createState({ threads: 1 });
  assert.deepEqual(a.info(), { device: model.info().device.device.name, threads: 1, scheduled: false, adaptiveThreads: false });
  const reference = await model.transcribe(phrase, { captureEncoder: true });
  const [ra, rb] = await Promise.all([a.transcribe(phrase, { captureEncoder: true }), b.transcribe(phrase, { captureEncoder: true })]);
  for (const r of [ra, rb]) {
    assert.deepEqual(r.tokens.map((t) => t.id), reference.tokens.map((t) => t.id));
    assert.deepEqual(Array.from(r.encoder?.data ?? []), Array.from(reference.encoder?.data ?? []));
  }
  a.dispose();
  b.dispose();
  assert.equal(a.disposed, true);
  // The model and its default state are untouched.
  assert.deepEqual((await model.transcribe(phrase)).tokens.map((t) => t.id), reference.tokens.map((t) => t.id));
});

test('maxThreads caps one call\'s threads (threadsUsed) without changing its result; a bad value is BAD_ARGUMENT', async () => {
  const model = await load(small);
  const state = model.createState({ threads: 2 });
  const all = await state.transcribe(phrase, { captureEncoder: true });
  const one = await state.transcribe(phrase, { captureEncoder: true, maxThreads: 1 });
  assert.equal(all.threadsUsed, 2);
  assert.equal(one.threadsUsed, 1);
  assert.deepEqual(one.tokens.map((t) => t.id), all.tokens.map((t) => t.id));
  const enc = (r: TranscribeResult) => Array.from(r.encoder?.data ?? []);
  let maxDiff = 0;
  const a = enc(all);
  const b = enc(one);
  for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!));
  assert.ok(maxDiff <= 1e-5, `encoder output with 1 thread vs 2: max |diff| ${maxDiff}`);
  assert.equal((await state.transcribe(phrase, { maxThreads: 8 })).threadsUsed, 2, 'never more than the state has');
  for (const bad of [-1, 1.5, 5000]) await rejectsWithCode(() => state.transcribe(phrase, { maxThreads: bad }), 'BAD_ARGUMENT', /maxThreads/);
  state.dispose();
});

test('a state scheduled through ggml_backend_sched agrees with the direct path of the same weights', async () => {
  const model = await load(tdt);
  const scheduled = model.createState({ alwaysSchedule: true });
  assert.equal(scheduled.info().scheduled, true);
  const [direct, viaSched] = await Promise.all([model.transcribe(phrase), scheduled.transcribe(phrase)]);
  assert.deepEqual(viaSched.tokens.map((t) => t.id), direct.tokens.map((t) => t.id));
  scheduled.dispose();
});

test('one state runs one call at a time: a second concurrent call on it rejects BUSY, another state does not', async () => {
  const model = await load(small);
  const state = model.createState({ threads: 1 });
  const other = model.createState({ threads: 1 });
  // Started from the long call's first progress report (one of several windows done), while it still runs.
  const started: { same?: Promise<PromiseSettledResult<unknown>>; beside?: Promise<TranscribeResult> } = {};
  const long = await state.transcribe(noise(seconds(40), 0.3, 3), {
    maxWindowSec: 10,
    onProgress: () => {
      started.same ??= Promise.allSettled([state.transcribe(phrase)]).then(([r]) => r);
      started.beside ??= other.transcribe(phrase);
    },
  });
  assert.ok(long.windows.length >= 4, `${long.windows.length} windows`);
  const { same, beside } = started;
  assert.ok(same && beside, 'the long call reported progress');
  const outcome = await same;
  assert.equal(outcome.status, 'rejected');
  await rejectsWithCode(Promise.reject((outcome as PromiseRejectedResult).reason), 'BUSY', /state/);
  assert.equal((await beside).durationSec, 2, 'another state runs beside it');
  state.dispose();
  other.dispose();
});

test('disposing the model aborts a transcription running on one of its states, and the state refuses new calls', async () => {
  const model = await Model.load(small, ONE_THREAD);
  const state = model.createState();
  // Disposed at the first progress report (one of several windows done), so the call is still running.
  const pending = state.transcribe(noise(seconds(60), 0.3, 4), { maxWindowSec: 10, onProgress: () => model.dispose() });
  await rejectsWithCode(pending, 'ABORTED');
  assert.equal(state.disposed, true);
  await rejectsWithCode(async () => state.transcribe(phrase), 'BAD_ARGUMENT', /dispos/);
  throwsWithCode(() => model.createState(), 'BAD_ARGUMENT', /dispos/);
});

test('two models of one file (sharing its mapping) each outlive the other', async () => {
  const a = await Model.load(tdt, ONE_THREAD);
  const b = await Model.load(tdt, { ...ONE_THREAD, alwaysSchedule: true });
  const reference = (await a.transcribe(phrase)).tokens.map((t) => t.id);
  a.dispose();
  assert.deepEqual((await b.transcribe(phrase)).tokens.map((t) => t.id), reference);
  const c = await Model.load(tdt, ONE_THREAD);
  b.dispose();
  assert.deepEqual((await c.transcribe(phrase)).tokens.map((t) => t.id), reference);
  c.dispose();
});
