// The engine's Sortformer diarizer against the float64 reference (test/reference/sortformer.ts) on a
// generated model whose streaming geometry fills, pops and compresses the speaker cache within seconds:
// offline and streaming activities, a live stream fed in blocks, and the refusals between model kinds.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Model } from '../../native/index.js';
import { Diarizer } from '../../native/diarizer.js';
import { loadSortformer, sortformerOffline, sortformerStreaming } from '../reference/sortformer.js';
import { concat, quiet, speechLike } from '../support/audio/signals.js';
import { generateModel } from '../support/model/generate.js';
import { generateSortformer } from '../support/model/sortformer.js';
import { openWeightSource } from '../support/model/weights-source.js';
import { fmt, maxAbsDiff, relL2 } from './helpers/compare.js';
import { rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('sortformer');
const path = join(dir, 'sortformer-tiny.gguf');
generateSortformer(path);
// 6.3 s: 79 frames, 13 streaming chunks of 6 frames (the last one short), several cache compressions.
const pcm = concat(speechLike(2.1, 11), quiet(0.7, 12), speechLike(3.5, 13));
const reference = loadSortformer(openWeightSource(path));
const diarizer = Diarizer.load(path, { threads: 1 });
after(async () => (await diarizer).dispose());

/**
 * F32 engine against the float64 reference: the FastConformer's F32 error (the ASR tests hold its frames to
 * 1e-4 relative L2) grows through the transformer's sharp attention and the speaker head's gain (the head
 * is an F32 ggml graph too). Measured here: 2.3e-4 (offline) and 1.3e-4 (streaming) relative L2, max 1e-3.
 */
const RELATIVE_L2 = 5e-4;
const MAX_ABS = 2.5e-3;

function assertClose(label: string, ref: Float64Array, got: Float32Array): void {
  const rel = relL2(ref, got);
  const diff = maxAbsDiff(ref, got);
  console.log(`${label}: relative L2 ${fmt(rel)}, max |Δp| ${fmt(diff)}`);
  assert.ok(rel <= RELATIVE_L2 && diff <= MAX_ABS, `${label}: relative L2 ${fmt(rel)}, max |Δp| ${fmt(diff)}`);
}

test('offline: the activities of every frame match the reference', async () => {
  const d = await diarizer;
  const ref = sortformerOffline(pcm, reference);
  const got = await d.diarize(pcm, { streaming: false });
  assert.equal(got.nSpeakers, 4);
  assert.equal(got.frameSec, 0.08);
  assert.equal(got.frames, ref.frames);
  assertClose(`offline, ${got.frames} frames`, ref.activities, got.activities);
});

test('streaming: speaker cache, FIFO and compression give the reference activities chunk after chunk', async () => {
  const d = await diarizer;
  const ref = sortformerStreaming(pcm, reference);
  const got = await d.diarize(pcm, { streaming: true });
  assert.equal(got.frames, ref.frames);
  // The cache really was exercised: frames above and below 0.5 (speech and silence for its scores).
  const above = Array.from(ref.activities).filter((p) => p > 0.5).length;
  assert.ok(above > 0 && above < ref.activities.length, `${above} of ${ref.activities.length} activities above 0.5`);
  assertClose(`streaming, ${got.frames} frames`, ref.activities, got.activities);
  // Streaming is not the offline pass: different context, so different numbers.
  assert.ok(maxAbsDiff(sortformerOffline(pcm, reference).activities, ref.activities) > 1e-3);
});

test('a live stream fed in uneven blocks returns exactly the frames of diarize(streaming)', async () => {
  const d = await diarizer;
  const whole = await d.diarize(pcm, { streaming: true });
  const stream = d.createStream();
  const parts: Float32Array[] = [];
  let frames = 0;
  for (let at = 0, size = 1234; at < pcm.length; at += size, size = (size * 7) % 5000 + 300) {
    const got = await stream.push(pcm.subarray(at, Math.min(pcm.length, at + size)));
    frames += got.frames;
    parts.push(got.activities);
  }
  const tail = await stream.finish();
  stream.dispose();
  assert.ok(frames > 0 && tail.frames > 0, `frames during the stream (${frames}) and at its end (${tail.frames})`);
  assert.deepEqual(Array.from(concatFloats([...parts, tail.activities])), Array.from(whole.activities));
});

test('a diarizer is refused as the speech model, and a speech model as the diarizer, each naming what the file is', async () => {
  const asr = join(dir, 'asr.gguf');
  generateModel(asr, { preset: 'tiny', arch: 'ctc', weightType: 'f32' });
  await rejectsWithCode(Model.load(path), 'MODEL_INVALID', /speaker-diarization model .*Sortformer.*use it as the diarizer \(parakeet transcribe --diarizer/);
  await rejectsWithCode(Diarizer.load(asr), 'MODEL_INVALID', /speech recognition model \(parakeet.arch = 'ctc'\), not a speaker-diarization model/);
});

test('a 10 ms speaker head (Nemotron-3-Diarization\'s subpixel upsampling) is refused by name', async () => {
  const highResolution = join(dir, 'sortformer-subpixel.gguf');
  generateSortformer(highResolution, { subpixelUpsample: true });
  await rejectsWithCode(Diarizer.load(highResolution), 'MODEL_INVALID', /subpixel_upsample\.weight': this is a 10 ms speaker head \(Nemotron-3-Diarization\), not supported/);
});

function concatFloats(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
