// Properties of the engine's cache-aware stream that do not need the reference's decode: the streamed
// encoder equals the offline limited-context encoder where NeMo says it does (right context ≥ 1,
// spec Corrections 5); the result does not depend on how the PCM is cut into blocks; several streams
// on one model at once give what each gives alone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Model, type StreamOptions } from '../../native/index.js';
import { referenceOfflineAllFrames } from '../reference/stream.js';
import { concat, quiet, speechLike } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { fmt, relL2 } from './helpers/compare.js';
import { ONE_THREAD } from './helpers/engine.js';
import { engineStream, familyModel, STREAMING_FAMILIES, type EngineStreamRun } from './helpers/stream.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('stream-properties');
const pcm = concat(speechLike(1.9, 31), quiet(0.4, 32), speechLike(1.3, 33));

/** The chunks' encoder frames one after another: [frames][D]. */
function streamedFrames(run: EngineStreamRun): Float32Array {
  return concat(...run.raw.map((c) => c.encoded ?? new Float32Array(0)));
}

for (const family of STREAMING_FAMILIES) {
  const path = familyModel(dir, family, 'f32').path;
  const loaded = Model.load(path, { ...ONE_THREAD, weightType: 'f32' });
  after(async () => (await loaded).dispose());

  test(`${family}: with right context ≥ 1 the streamed encoder is the offline limited-context encoder over every mel frame`, async () => {
    const model = await loaded;
    const weights = openWeightSource(path);
    const presets = model.info().attContextPresets.filter(([, right]) => right >= 1);
    assert.ok(presets.length >= 1);
    for (const [left, right] of presets) {
      const run = await engineStream(model, pcm, { attContext: [left, right], captureEncoder: true });
      const offline = referenceOfflineAllFrames(weights, pcm, [left, right]);
      const frames = run.raw.reduce((n, c) => n + c.frames, 0);
      assert.equal(frames, offline.frames, `[${left},${right}]: the stream yields every offline frame`);
      const rel = relL2(offline.out, streamedFrames(run));
      assert.ok(rel <= 1e-4, `[${left},${right}]: streamed vs offline encoder relative L2 ${fmt(rel)}`);
    }
    // The engine's own offline pass (the default preset) agrees too, over its frames.
    const [left, right] = model.info().attContextPresets[0];
    if (right >= 1) {
      const run = await engineStream(model, pcm, { captureEncoder: true });
      const offline = await model.transcribe(pcm, { captureEncoder: true });
      const enc = offline.encoder!;
      const rel = relL2(enc.data, streamedFrames(run), enc.validFrames * enc.dim);
      assert.ok(rel <= 1e-5, `[${left},${right}]: engine stream vs engine offline relative L2 ${fmt(rel)}`);
    }
  });
}

test('a 24-layer model (the 0.6B depth, tiny width) streams what its offline pass computes: graph sizes scale with depth', async () => {
  const deep = generateModel(join(dir, 'deep.gguf'), { preset: 'tiny', family: 'nemotron-en', nLayers: 24, weightType: 'q8_0', seed: 7 });
  for (const weightType of ['f32', 'auto'] as const) {
    const model = await Model.load(deep.path, { ...ONE_THREAD, weightType });
    try {
      const run = await engineStream(model, pcm, { captureEncoder: true });
      const offline = await model.transcribe(pcm, { captureEncoder: true });
      const enc = offline.encoder!;
      const streamed = streamedFrames(run);
      if (weightType === 'f32') {
        const rel = relL2(enc.data, streamed, enc.validFrames * enc.dim);
        assert.ok(rel <= 1e-4, `f32: stream vs offline encoder relative L2 ${fmt(rel)}`);
      } else {
        // Q8_0 activations turn the last-bit differences of summing over [cache | chunk] instead of the whole
        // clip into whole quantization steps, which 24 random layers amplify frame after frame; the first
        // chunk (empty caches) is the same computation.
        const first = run.raw[0].frames * enc.dim;
        const rel = relL2(enc.data.subarray(0, first), streamed.subarray(0, first));
        assert.ok(rel <= 1e-5, `auto: first chunk relative L2 ${fmt(rel)}`);
        assert.equal(run.raw.reduce((n, c) => n + c.frames, 0), enc.frames, 'auto: every frame streamed');
      }
    } finally {
      model.dispose();
    }
  }
});

test('blocks of any size give the same chunks, tokens and encoder frames, bit for bit', async () => {
  const model = await Model.load(familyModel(dir, 'nemotron-3.5', 'f32').path, ONE_THREAD);
  try {
    const clip = pcm.subarray(0, 16000 * 2 + 77);
    const options: StreamOptions = { attContext: [56, 3], captureEncoder: true };
    const whole = await engineStream(model, clip, options, clip.length);
    assert.ok(whole.tokenIds.length >= 3, 'a decode with tokens');
    for (const block of [13, 160, 1601, 16000]) {
      const run = await engineStream(model, clip, options, block);
      assert.deepEqual(run.chunks, whole.chunks, `blocks of ${block}: chunks`);
      assert.deepEqual(run.events, whole.events, `blocks of ${block}: events`);
      assert.deepEqual(streamedFrames(run), streamedFrames(whole), `blocks of ${block}: encoder frames`);
    }
  } finally {
    model.dispose();
  }
});

test('several streams on one model at once (and a transcription beside them) give what each gives alone', async () => {
  const model = await Model.load(familyModel(dir, 'nemotron-3.5', 'f32').path, ONE_THREAD);
  try {
    const jobs: { clip: Float32Array; options: StreamOptions; block: number }[] = [
      { clip: pcm, options: { attContext: [56, 3] }, block: 800 },
      { clip: speechLike(3.1, 41), options: { attContext: [56, 13], language: 'de-DE' }, block: 1999 },
      { clip: speechLike(2.2, 42), options: { attContext: [56, 0], language: 'fr-FR' }, block: 320 },
    ];
    const alone: EngineStreamRun[] = [];
    for (const j of jobs) alone.push(await engineStream(model, j.clip, j.options, j.block));
    const offlineAlone = await model.transcribe(pcm);
    const [together, offlineBeside] = await Promise.all([
      Promise.all(jobs.map((j) => engineStream(model, j.clip, j.options, j.block))),
      model.transcribe(pcm),
    ]);
    together.forEach((run, i) => {
      assert.deepEqual(run.chunks, alone[i].chunks, `stream ${i}: chunks`);
      assert.deepEqual(run.events, alone[i].events, `stream ${i}: events`);
    });
    assert.equal(offlineBeside.text, offlineAlone.text, 'the offline transcription beside the streams');
    assert.ok(alone.some((r) => r.tokenIds.length > 0), 'the streams decode tokens');
  } finally {
    model.dispose();
  }
});

test('offline transcription of a prompt model takes the language too, and decodes what the stream decodes (R ≥ 1, no resets)', async () => {
  const model = await Model.load(familyModel(dir, 'nemotron-3.5', 'f32').path, { ...ONE_THREAD, weightType: 'f32' });
  try {
    const texts = new Set<string>();
    for (const language of ['auto', 'fr-FR', 'es-ES']) {
      const offline = await model.transcribe(pcm, { language, captureEncoder: true });
      const run = await engineStream(model, pcm, { language });
      const valid = offline.encoder!.validFrames;
      const streamed = run.raw.flatMap((c) => c.tokens).filter((t) => t.frame < valid);
      assert.deepEqual(offline.tokens.map((t) => [t.id, t.frame]), streamed.map((t) => [t.id, t.frame]), `${language}: offline vs streamed tokens`);
      texts.add(offline.tokens.map((t) => t.id).join(','));
    }
    assert.ok(texts.size >= 2, 'the language changes the decode');
    await assert.rejects(model.transcribe(pcm, { language: 'xx-XX' }), (e: Error & { code?: string }) =>
      e.code === 'BAD_ARGUMENT' && /language 'xx-XX' is not one of this model's locales/.test(e.message));
  } finally {
    model.dispose();
  }
});

test('stream errors: an offline model, an unknown preset or locale, feeding after end, non-finite audio', async () => {
  const model = await Model.load(familyModel(dir, 'eou', 'f32').path, ONE_THREAD);
  const prompt = await Model.load(familyModel(dir, 'nemotron-3.5', 'f32').path, ONE_THREAD);
  const offline = await Model.load(generateModel(join(dir, 'offline.gguf'), { preset: 'tiny', arch: 'rnnt', seed: 3 }).path, ONE_THREAD);
  try {
    assert.equal(offline.info().streaming, false);
    assert.throws(() => offline.createStream(), (e: Error & { code?: string }) =>
      e.code === 'BAD_ARGUMENT' && /this model cannot stream: it is an offline model/.test(e.message));
    assert.throws(() => model.createStream({ attContext: [56, 3] }), (e: Error & { code?: string }) =>
      e.code === 'BAD_ARGUMENT' && /attention context 56,3 is not a preset of this model \(its presets: 70,1\)/.test(e.message));
    assert.throws(() => prompt.createStream({ language: 'xx-XX' }), (e: Error & { code?: string }) =>
      e.code === 'BAD_ARGUMENT' && /language 'xx-XX' is not one of this model's locales/.test(e.message));
    assert.throws(() => model.createStream({ language: 'en-US' }), (e: Error & { code?: string }) =>
      e.code === 'BAD_ARGUMENT' && /no language prompt/.test(e.message));
    const stream = model.createStream();
    const bad = new Float32Array(100);
    bad[50] = Number.NaN;
    await assert.rejects(stream.feed(bad), (e: Error & { code?: string }) => e.code === 'BAD_AUDIO');
    assert.deepEqual(await stream.feed(new Float32Array(0)), []);
    await stream.end();
    await assert.rejects(stream.feed(new Float32Array(10)), (e: Error & { code?: string }) => e.code === 'BAD_ARGUMENT');
    stream.dispose();
  } finally {
    model.dispose();
    prompt.dispose();
    offline.dispose();
  }
});
