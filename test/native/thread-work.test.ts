// The profile's split of the work over the CPU threads (native/engine/runtime/thread_work.h): each
// thread's CPU time inside its own share of the engine's ops, and an op that runs on one thread
// named as such. CPU times, not wall times: the assertions hold on a busy machine.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Model, listDevices, type EncoderProfile, type NodeTime } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { seconds, speechSamples } from './helpers/audio.js';
import { engineStream, familyModel } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('thread-work');
const pcm = speechSamples(dir, seconds(4));
const modelPath = generateModel(join(dir, 'small-f32.gguf'), { preset: 'small', weightType: 'f32', seed: 5 }).path;

/** The profile of a second run, and whether the engine's own kernels ran (else only ggml's ops exist to profile). */
async function profiled(threads: number): Promise<{ p: EncoderProfile; engineKernels: boolean }> {
  const model = await Model.load(modelPath, { threads, weightType: 'f32' });
  try {
    await model.transcribe(pcm);  // the kept position projections are made on the first run
    const r = await model.transcribe(pcm, { profile: true });
    assert.ok(r.profile, 'a profiled run returns its profile');
    return { p: r.profile, engineKernels: Object.keys(model.info().kernels).length > 0 };
  } finally {
    model.dispose();
  }
}

function measuredOps(p: EncoderProfile): [string, NodeTime][] {
  const ops = Object.entries(p.byOp).filter(([, t]) => t.measured > 0);
  assert.ok(ops.length > 0, `the engine's kernels ran, so their ops are measured: ${JSON.stringify(p.byOp)}`);
  return ops;
}
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

test('two threads: every engine op reports both threads\' shares; layer norm and the F32 GEMM keep both busy', async (t) => {
  const { p, engineKernels } = await profiled(2);
  if (!engineKernels) return t.skip('no engine kernel runs on this CPU class (ggml ops only)');
  const ops = measuredOps(p);
  assert.equal(p.threads, 2);
  for (const [name, op] of ops) {
    assert.equal(op.threadMs.length, 2, `${name}: one share per thread`);
    assert.equal(op.measured, op.count, `${name}: every node of an engine op is measured`);
    // Σ over nodes of the busiest share lies between the busiest thread's total and all the work.
    assert.ok(op.busiestMs >= Math.max(...op.threadMs) - 1e-9 && op.busiestMs <= sum(op.threadMs) + 1e-9, `${name}: ${JSON.stringify(op)}`);
  }
  for (const name of ['layer_norm_fused', 'f32_gemm']) {
    const op = p.byOp[name];
    assert.ok(op, `${name} ran (ops: ${Object.keys(p.byOp).join(', ')})`);
    assert.ok(op.threadMs[0] > 0 && op.threadMs[1] > 0, `${name}: both threads worked: ${op.threadMs.join(', ')} ms`);
    assert.equal(op.oneThread, 0, `${name} is split, not serial`);
  }
  // The parts carry the same split (matmuls by weight role).
  const parts = Object.values(p.byPart).filter((x) => x.measured > 0);
  assert.ok(Math.abs(sum(parts.map((x) => sum(x.threadMs))) - sum(ops.map(([, x]) => sum(x.threadMs)))) < 1e-6, 'parts and ops hold the same work');
});

test('one thread: each op\'s measured share lies inside the calling thread\'s CPU time for its nodes', async (t) => {
  const { p, engineKernels } = await profiled(1);
  if (!engineKernels) return t.skip('no engine kernel runs on this CPU class (ggml ops only)');
  const ops = measuredOps(p);
  assert.equal(p.threads, 1);
  for (const [name, op] of ops) {
    assert.equal(op.threadMs.length, 1, name);
    assert.ok(op.threadMs[0] > 0 && op.threadMs[0] <= op.cpuMs + 1e-6, `${name}: share ${op.threadMs[0]} ms, node CPU ${op.cpuMs} ms`);
    assert.ok(Math.abs(op.busiestMs - op.threadMs[0]) < 1e-9, `${name}: the one thread is the busiest`);
    assert.equal(op.oneThread, 0, `${name}: nothing is "serial" at one thread`);
  }
});

// The in-place window shift is one of the stream's fused CPU ops, which run with the fused stream attention
// (stream_encoder.cpp fused_stream_ops: AVX-512); below it the shift is ggml's copy, split over the threads.
const cpuFeatures = listDevices().find((d) => d.type === 'cpu')?.cpuFeatures ?? [];
const skipNoFusedStream = cpuFeatures.includes('PARAKEET_AVX512') ? false : 'no AVX-512 here (or PARAKEET_CPU_CLASS caps it): a stream shifts its caches with ggml\'s copy, not the one-task op';

test('a serial op (a stream\'s window shift, one task) shows all its work on thread 0 and counts as one-thread', { skip: skipNoFusedStream }, async () => {
  const path = familyModel(dir, 'nemotron-en').path;
  const model = await Model.load(path, { threads: 2, weightType: 'f32' });
  try {
    const run = await engineStream(model, pcm, { profile: true });  // the stream's state has the model's 2 threads
    const profiles = run.raw.flatMap((c) => (c.profile ? [c.profile] : []));
    assert.ok(profiles.length > 0, 'the chunks after the first are profiled');
    const shifts = profiles.map((p) => p.byOp.window_shift).filter((x): x is NodeTime => x !== undefined);
    assert.ok(shifts.length > 0, `window_shift ran (ops: ${Object.keys(profiles[0].byOp).join(', ')})`);
    for (const shift of shifts) {
      assert.equal(shift.oneThread, shift.count, 'ggml gives the one-task op a single thread');
      assert.equal(shift.threadMs[1], 0, 'thread 1 did none of it');
      assert.ok(shift.threadMs[0] > 0, 'thread 0 did it');
    }
  } finally {
    model.dispose();
  }
});
