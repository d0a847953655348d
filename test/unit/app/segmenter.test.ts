// Voice-activity segmentation on synthetic signals (speech-like bursts
// separated by quiet): cut points, pre-roll, pause, length cap at the
// quietest point, stop mid-speech; plus the audio store the session builds on
// (the resampler has its own tests: test/unit/shared/resample.test.ts).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AudioStore } from '../../../app/main/sessions/audio-store.js';
import { Segmenter, type SegmentEvent, type SegmenterOptions } from '../../../app/main/sessions/segmenter.js';
import { RATE, concat, frames, quiet, speechLike } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

const OPTS: SegmenterOptions = { sampleRate: RATE, pauseMs: 600, maxSegmentSec: 15, preRollMs: 300, thresholdDb: 10 };

function run(audio: Float32Array, opts: Partial<SegmenterOptions> = {}, frameSamples = 1600, stop = true): SegmentEvent[] {
  const seg = new Segmenter({ ...OPTS, ...opts });
  const events: SegmentEvent[] = [];
  for (const f of frames(audio, frameSamples)) events.push(...seg.push(f));
  if (stop) events.push(...seg.finish());
  return events;
}

const closes = (events: SegmentEvent[]) => events.filter((e): e is Extract<SegmentEvent, { type: 'close' }> => e.type === 'close');
const s = (sec: number) => Math.round(sec * RATE);

test('bursts separated by pauses become one segment each, with pre-roll and tail, never overlapping', () => {
  const audio = concat(quiet(1, 1), speechLike(1.5, 2), quiet(1, 3), speechLike(1.0, 4), quiet(1.2, 5));
  const cuts = closes(run(audio));
  assert.equal(cuts.length, 2);
  // Burst 1: 1.0–2.5 s; burst 2: 3.5–4.5 s.
  const [a, b] = cuts;
  assert.ok(Math.abs(a!.start - s(1 - 0.3)) <= s(0.04), `segment 1 starts 300 ms before the onset (${a!.start})`);
  assert.ok(a!.end >= s(2.5) && a!.end <= s(2.5 + 0.25), `segment 1 ends ~200 ms after the speech (${a!.end})`);
  assert.equal(a!.reason, 'pause');
  assert.ok(b!.start >= a!.end, 'no overlap');
  assert.ok(Math.abs(b!.start - s(3.5 - 0.3)) <= s(0.04));
  assert.equal(b!.reason, 'pause');
});

test('the cut points do not depend on how the stream is framed', () => {
  const audio = concat(quiet(0.7, 1), speechLike(2, 7), quiet(0.9, 2), speechLike(0.8, 8), quiet(1, 3));
  const reference = closes(run(audio, {}, 1600));
  for (const size of [128, 320, 333, 4800, audio.length]) assert.deepEqual(closes(run(audio, {}, size)), reference, `frames of ${size}`);
});

test('a pause shorter than pauseMs does not split; a longer one does', () => {
  const short = concat(quiet(0.5, 1), speechLike(1, 2), quiet(0.4, 3), speechLike(1, 4), quiet(1, 5));
  assert.equal(closes(run(short)).length, 1);
  const long = concat(quiet(0.5, 1), speechLike(1, 2), quiet(0.8, 3), speechLike(1, 4), quiet(1, 5));
  assert.equal(closes(run(long)).length, 2);
});

test('stop mid-speech closes the open segment at the last sample', () => {
  const audio = concat(quiet(0.5, 1), speechLike(1.3, 2));
  const events = run(audio);
  const cuts = closes(events);
  assert.equal(cuts.length, 1);
  assert.equal(cuts[0]!.end, audio.length);
  assert.equal(cuts[0]!.reason, 'stop');
  // Stop during the onset (speech shorter than the onset confirmation) still keeps it.
  const blip = concat(quiet(0.5, 1), speechLike(0.04, 3));
  const blipCuts = closes(run(blip));
  assert.equal(blipCuts.length, 1);
  assert.equal(blipCuts[0]!.end, blip.length);
});

test('a segment reaching maxSegmentSec is cut at its quietest point; the next continues from exactly there', () => {
  // 9 s of speech with a dip (not a pause) at 5.0–5.2 s, cap 6 s.
  const dip = speechLike(0.2, 9, 0.02);
  const audio = concat(quiet(0.5, 1), speechLike(4.5, 2), dip, speechLike(4.3, 4), quiet(1, 5));
  const events = run(audio, { maxSegmentSec: 6 });
  const cuts = closes(events);
  assert.ok(cuts.length >= 2);
  assert.equal(cuts[0]!.reason, 'cap');
  assert.ok(cuts[0]!.end >= s(5.0) && cuts[0]!.end <= s(5.2), `cut inside the dip (${cuts[0]!.end / RATE} s)`);
  assert.equal(cuts[1]!.start, cuts[0]!.end, 'contiguous: no sample lost or repeated');
  assert.ok(cuts.every((c) => c.end - c.start <= s(6)), 'every segment within the cap');
});

test('digital silence and steady room noise never open a segment; a louder noise floor is learned', () => {
  assert.deepEqual(closes(run(new Float32Array(s(3)))), []);
  assert.deepEqual(closes(run(quiet(3, 1, 0.01))), []); // -46 dBFS noise: floor follows it
  // Speech 15 dB above a noisy floor is still found.
  const audio = concat(quiet(2, 1, 0.02), speechLike(1, 2, 0.4), quiet(1.5, 3, 0.02));
  assert.equal(closes(run(audio)).length, 1);
});

test('audio store: exact reads across chunks, memory = the audio, spill bounds memory and keeps every sample', async () => {
  const dir = scratch('store');
  const store = new AudioStore({ chunkSamples: 1000, spill: { file: join(dir, 'a.f32'), afterSamples: 3000 } });
  const all = speechLike(1, 11); // 16000 samples
  for (const f of frames(all, 777)) store.append(f);
  assert.equal(store.length, all.length);
  assert.deepEqual(store.read(2500, 4100), all.slice(2500, 4100));
  assert.equal(store.memoryBytes, 16 * 1000 * 4);
  store.release(12_500);
  assert.ok(store.memoryBytes <= 5 * 1000 * 4, `memory after release: ${store.memoryBytes}`);
  assert.throws(() => store.read(0, 10), /spilled/);
  assert.deepEqual(store.read(12_000, 16_000), all.slice(12_000));
  assert.deepEqual(await store.readAll(), all);
  await store.dispose();
  assert.equal(existsSync(join(dir, 'a.f32')), false);
});

