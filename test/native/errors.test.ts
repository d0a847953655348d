// Error paths of transcription: cancellation (AbortSignal, dispose), BUSY for a
// concurrent call, BAD_AUDIO for unusable audio, BAD_ARGUMENT for a decoder
// head the model lacks and for bad options; use after dispose.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isEngineError, Model } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { noise, seconds, tone } from './helpers/audio.js';
import { ONE_THREAD, rejectsWithCode, throwsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('errors');
const paths = {
  tdt: join(dir, 'tdt.gguf'),
  ctc: join(dir, 'ctc.gguf'),
  rnnt: join(dir, 'rnnt.gguf'),
  hybrid: join(dir, 'hybrid.gguf'),
  small: join(dir, 'small.gguf'),
};
generateModel(paths.tdt, { preset: 'tiny', arch: 'tdt', seed: 1 });
generateModel(paths.ctc, { preset: 'tiny', arch: 'ctc', seed: 1 });
generateModel(paths.rnnt, { preset: 'tiny', arch: 'rnnt', seed: 1 });
generateModel(paths.hybrid, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 1 });
generateModel(paths.small, { preset: 'small', arch: 'hybrid_tdt_ctc', seed: 1 });

const oneSecond = tone(seconds(1), 300, 0.3);
const open: Model[] = [];
async function load(path: string, options = {}): Promise<Model> {
  const m = await Model.load(path, { ...ONE_THREAD, ...options });
  open.push(m);
  return m;
}
after(() => {
  for (const m of open) m.dispose();
});

describe('cancellation', () => {
  test('AbortSignal during a long transcription (small model, 300 s) rejects ABORTED promptly', async () => {
    const model = await load(paths.small, { threads: 0 }); // default threads: the realistic case
    // Five 60 s windows; the abort comes with the first progress report (after the first window),
    // so it lands mid-transcription however fast the machine is.
    const pcm = noise(seconds(300), 0.3, 99);
    const controller = new AbortController();
    let abortedAt = 0;
    const started = performance.now();
    const pending = model.transcribe(pcm, {
      signal: controller.signal,
      onProgress: () => {
        if (abortedAt > 0) return;
        abortedAt = performance.now();
        controller.abort();
      },
    });
    const error = await rejectsWithCode(pending, 'ABORTED');
    const latency = performance.now() - abortedAt;
    console.log(`cancel: aborted at the first progress report of a 300 s transcription, rejected ${latency.toFixed(1)} ms after abort() (${(performance.now() - started).toFixed(0)} ms total)`);
    assert.ok(abortedAt > 0, 'abort() was called before the rejection');
    assert.ok(latency < 2000, `rejection ${latency.toFixed(0)} ms after abort`);
    assert.match(error.message, /cancel/i);
    // The model stays usable afterwards.
    const r = await model.transcribe(oneSecond);
    assert.equal(r.durationSec, 1);
  });

  test('an already-aborted signal rejects at once without running', async () => {
    const model = await load(paths.small);
    const controller = new AbortController();
    controller.abort();
    const pcm = noise(seconds(60));
    const t0 = performance.now();
    await rejectsWithCode(model.transcribe(pcm, { signal: controller.signal }), 'ABORTED');
    const ms = performance.now() - t0;
    console.log(`pre-aborted signal: rejected after ${ms.toFixed(1)} ms`);
    assert.ok(ms < 100, `${ms.toFixed(0)} ms`);
  });

  test('aborting after completion changes nothing', async () => {
    const model = await load(paths.tdt);
    const controller = new AbortController();
    const r = await model.transcribe(oneSecond, { signal: controller.signal });
    controller.abort();
    assert.equal(r.durationSec, 1);
    await model.transcribe(oneSecond); // still usable
  });

  test('dispose() during a transcription rejects that call with ABORTED; later use is an error', async () => {
    const model = await Model.load(paths.small, ONE_THREAD);
    // Disposed at the first progress report of five windows: mid-transcription on any machine.
    let t0 = 0;
    let disposeMs = 0;
    const pending = model.transcribe(noise(seconds(300), 0.3, 5), {
      onProgress: () => {
        if (t0 > 0) return;
        t0 = performance.now();
        model.dispose();
        disposeMs = performance.now() - t0;
      },
    });
    await rejectsWithCode(pending, 'ABORTED');
    assert.ok(t0 > 0, 'dispose() ran before the call settled');
    console.log(`dispose during transcription: dispose() returned in ${disposeMs.toFixed(1)} ms, call rejected ${(performance.now() - t0).toFixed(1)} ms after`);
    assert.equal(model.disposed, true);
    const e = await rejectsWithCode(model.transcribe(oneSecond), 'BAD_ARGUMENT', /dispos/);
    assert.ok(isEngineError(e));
    throwsWithCode(() => model.info(), 'BAD_ARGUMENT', /dispos/);
    model.dispose(); // idempotent
    assert.equal(model.disposed, true);
  });
});

describe('one transcription at a time', () => {
  test('two concurrent transcribe() calls on one model: one resolves, the other rejects BUSY', async () => {
    const model = await load(paths.small);
    // The second call starts from the first's first progress report (after the first of several windows), so
    // it lands while the first runs however fast the machine is.
    const started: { second?: Promise<PromiseSettledResult<unknown>> } = {};
    const first = model.transcribe(noise(seconds(40), 0.3, 3), {
      maxWindowSec: 10,
      onProgress: () => {
        started.second ??= Promise.allSettled([model.transcribe(oneSecond)]).then(([r]) => r);
      },
    });
    const r1 = await first;
    assert.ok(r1.windows.length >= 4, `${r1.windows.length} windows`);
    assert.ok(started.second, 'the first call reported progress');
    const outcome = await started.second;
    assert.equal(outcome.status, 'rejected');
    await rejectsWithCode(Promise.reject((outcome as PromiseRejectedResult).reason), 'BUSY', /one at a time/);
    // Not stuck: the model accepts the next call.
    const r = await model.transcribe(oneSecond);
    assert.equal(r.durationSec, 1);
  });

  test('two models transcribe concurrently', async () => {
    const a = await load(paths.tdt);
    const b = await load(paths.tdt);
    const [ra, rb] = await Promise.all([a.transcribe(oneSecond), b.transcribe(oneSecond)]);
    assert.deepEqual(ra.tokens.map((t) => t.id), rb.tokens.map((t) => t.id));
  });
});

describe('bad audio → BAD_AUDIO', () => {
  let tdtModel: Model | undefined;
  const pcm = tone(seconds(1), 200);
  const withNaN = pcm.slice();
  withNaN[1600] = Number.NaN;
  const withInf = pcm.slice();
  withInf[3200] = Number.POSITIVE_INFINITY;
  const withNegInf = pcm.slice();
  withNegInf[0] = Number.NEGATIVE_INFINITY;
  const cases: { name: string; pcm: Float32Array; options?: Record<string, number>; message: RegExp }[] = [
    { name: 'empty Float32Array', pcm: new Float32Array(0), message: /empty/ },
    { name: 'NaN sample', pcm: withNaN, message: /non-finite.*0\.1000/ },
    { name: '+Infinity sample', pcm: withInf, message: /non-finite.*0\.2000/ },
    { name: '-Infinity sample', pcm: withNegInf, message: /non-finite/ },
    { name: 'sampleRate 0', pcm, options: { sampleRate: 0 }, message: /sampleRate/ },
    { name: 'sampleRate negative', pcm, options: { sampleRate: -16000 }, message: /sampleRate/ },
    { name: 'sampleRate non-integer', pcm, options: { sampleRate: 16000.5 }, message: /sampleRate/ },
    { name: 'sampleRate NaN', pcm, options: { sampleRate: Number.NaN }, message: /sampleRate/ },
    { name: 'sampleRate 44100 (not the model\'s: the engine does not resample)', pcm, options: { sampleRate: 44_100 }, message: /44100 Hz but the model takes mono PCM at 16000 Hz; resample it first/ },
    { name: 'channels 2 (the engine takes mono)', pcm, options: { channels: 2 }, message: /mono PCM \(channels: 1\); average the channels first/ },
    { name: 'channels 0', pcm, options: { channels: 0 }, message: /mono PCM/ },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      tdtModel ??= await load(paths.tdt);
      const model = tdtModel;
      await rejectsWithCode(model.transcribe(c.pcm, c.options ?? {}), 'BAD_AUDIO', c.message);
    });
  }

  test('a Float64Array or plain array is refused (BAD_ARGUMENT), not read as floats', async () => {
    const model = await load(paths.tdt);
    await rejectsWithCode(model.transcribe(new Float64Array(16000) as unknown as Float32Array), 'BAD_ARGUMENT', /Float32Array/);
    await rejectsWithCode(model.transcribe([0.1, 0.2] as unknown as Float32Array), 'BAD_ARGUMENT', /Float32Array/);
  });

  test('a model stays usable after rejecting bad audio', async () => {
    const model = await load(paths.tdt);
    await rejectsWithCode(model.transcribe(new Float32Array(0)), 'BAD_AUDIO');
    const r = await model.transcribe(oneSecond);
    assert.equal(r.durationSec, 1);
  });
});

describe('decoder heads and options → BAD_ARGUMENT', () => {
  test("decoder 'ctc' on a TDT-only model names the available decoders", async () => {
    const model = await load(paths.tdt);
    const e = await rejectsWithCode(model.transcribe(oneSecond, { decoder: 'ctc' }), 'BAD_ARGUMENT', /CTC/);
    assert.match(e.message, /decoders: tdt\b/);
  });

  test("decoder 'rnnt' on a TDT model, 'tdt' and 'rnnt' on a CTC model, 'tdt' on an RNNT model", async () => {
    const tdt = await load(paths.tdt);
    const ctc = await load(paths.ctc);
    const rnnt = await load(paths.rnnt);
    await rejectsWithCode(tdt.transcribe(oneSecond, { decoder: 'rnnt' }), 'BAD_ARGUMENT', /decoders: tdt/);
    await rejectsWithCode(ctc.transcribe(oneSecond, { decoder: 'tdt' }), 'BAD_ARGUMENT', /decoders: ctc/);
    await rejectsWithCode(ctc.transcribe(oneSecond, { decoder: 'rnnt' }), 'BAD_ARGUMENT', /decoders: ctc/);
    await rejectsWithCode(rnnt.transcribe(oneSecond, { decoder: 'tdt' }), 'BAD_ARGUMENT', /decoders: rnnt/);
    await rejectsWithCode(rnnt.transcribe(oneSecond, { decoder: 'ctc' }), 'BAD_ARGUMENT', /decoders: rnnt/);
  });

  test('a hybrid accepts both of its heads and auto picks the transducer', async () => {
    const model = await load(paths.hybrid);
    assert.equal((await model.transcribe(oneSecond)).decoder, 'tdt');
    assert.equal((await model.transcribe(oneSecond, { decoder: 'auto' })).decoder, 'tdt');
    assert.equal((await model.transcribe(oneSecond, { decoder: 'ctc' })).decoder, 'ctc');
    assert.equal((await model.transcribe(oneSecond, { decoder: 'tdt' })).decoder, 'tdt');
    await rejectsWithCode(model.transcribe(oneSecond, { decoder: 'rnnt' }), 'BAD_ARGUMENT', /decoders: tdt, ctc/);
  });

  test('unknown decoder, tdtRule, maxSymbols < 0, maxWindowSec < 1, sampleRate of the wrong type', async () => {
    const model = await load(paths.hybrid);
    await rejectsWithCode(model.transcribe(oneSecond, { decoder: 'whisper' as unknown as 'tdt' }), 'BAD_ARGUMENT', /whisper/);
    await rejectsWithCode(model.transcribe(oneSecond, { tdtRule: 'beam' as unknown as 'greedy' }), 'BAD_ARGUMENT', /tdtRule/);
    await rejectsWithCode(model.transcribe(oneSecond, { maxSymbols: -1 }), 'BAD_ARGUMENT', /maxSymbols/);
    await rejectsWithCode(model.transcribe(oneSecond, { maxWindowSec: 0.5 }), 'BAD_ARGUMENT', /maxWindowSec/);
    await rejectsWithCode(model.transcribe(oneSecond, { sampleRate: '16000' as unknown as number }), 'BAD_ARGUMENT', /sampleRate/);
  });
});
