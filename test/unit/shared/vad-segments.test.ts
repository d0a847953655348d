// Speech segments from per-chunk probabilities (app/shared/vad-segments.ts) and a file job's windows over
// them (app/engine-process/speech-windows.ts): hysteresis, minimum speech and silence, padding that never
// overlaps; silence between segments skipped, nearby segments joined up to the window limit, long speech
// cut by the engine's planner; a window starts on the 10 ms hop grid at or before its segment, not on the
// encoder-frame grid (only cuts inside long speech sit on that).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SPEECH_TAIL_MS, speechSegments, segmentSeconds, type VadSegmentOptions } from '../../../app/shared/vad-segments.js';
import { planSpeechWindows } from '../../../app/engine-process/speech-windows.js';
import { HopEnergyRecorder, hopEnergiesOf } from '../../../app/engine-process/hop-energies.js';
import { WindowPlanner } from '../../../native/windows.js';

const CHUNK = 512;
const RATE = 16000;
const OPTS: VadSegmentOptions = { threshold: 0.5, minSpeechMs: 250, minSilenceMs: 100, padMs: 30 };

function probs(pattern: string): Float32Array {
  // One character per chunk: '#' 0.9, '+' 0.45 (between release and threshold), '.' 0.05.
  return Float32Array.from([...pattern].map((c) => (c === '#' ? 0.9 : c === '+' ? 0.45 : 0.05)));
}

test('speech chunks become padded segments; short speech and short silence do not count', () => {
  const p = probs('....##########....########..........#....');
  const segs = speechSegments(p, CHUNK, RATE, p.length * CHUNK, OPTS);
  // The 4-chunk silence (128 ms ≥ 100 ms) splits; the lone chunk (32 ms < 250 ms) is dropped.
  assert.equal(segs.length, 2);
  assert.equal(segs[0]!.start, 4 * CHUNK - 480);
  assert.equal(segs[0]!.end, 14 * CHUNK + 480);
  assert.equal(segs[1]!.start, 18 * CHUNK - 480);
  assert.deepEqual(segmentSeconds(segs, RATE)[0], { start: 0.098, end: 0.478 });
});

test('chunks between release and threshold keep speech going; two-chunk silences do not end it', () => {
  const p = probs('..#####++++++#####..#####....');
  assert.equal(speechSegments(p, CHUNK, RATE, p.length * CHUNK, { ...OPTS, padMs: 0 }).length, 1);
});

test('at a low threshold (0.15 and below: threshold − 0.15 ≤ 0) speech still ends: below the release level\'s floor, 0.01, as silero-vad', () => {
  // A word (20 chunks at 0.9), 10 s of Silero's silence (0.001), the word again, 10 s of silence.
  const silence = Math.ceil((10 * RATE) / CHUNK);
  const p = Float32Array.from([...new Array(20).fill(0.9), ...new Array(silence).fill(0.001), ...new Array(20).fill(0.9), ...new Array(silence).fill(0.001)]);
  const second = (20 + silence) * CHUNK;
  for (const threshold of [0.05, 0.1, 0.15, 0.005]) {
    assert.deepEqual(speechSegments(p, CHUNK, RATE, p.length * CHUNK, { ...OPTS, threshold, padMs: 0 }),
      [{ start: 0, end: 20 * CHUNK }, { start: second, end: second + 20 * CHUNK }], `threshold ${threshold}: each word its own segment, no silence`);
  }
});

test('a segment whose chunks never reach the confirm level (threshold + 0.15) is not speech; one chunk there confirms it whole', () => {
  const unsure = Float32Array.from([0.05, 0.05, ...new Array(12).fill(0.58), 0.05, 0.05, 0.05, 0.05]);
  assert.deepEqual(speechSegments(unsure, CHUNK, RATE, unsure.length * CHUNK, OPTS), [], 'Silero on a held tone: 384 ms at 0.58');
  const confirmed = Float32Array.from(unsure);
  confirmed[9] = 0.66;
  assert.deepEqual(speechSegments(confirmed, CHUNK, RATE, confirmed.length * CHUNK, { ...OPTS, padMs: 0 }), [{ start: 2 * CHUNK, end: 14 * CHUNK }]);
  assert.deepEqual(speechSegments(unsure, CHUNK, RATE, unsure.length * CHUNK, { ...OPTS, threshold: 0.4, padMs: 0 }), [{ start: 2 * CHUNK, end: 14 * CHUNK }], 'the level moves with the threshold');
});

test('padding splits a narrow gap instead of overlapping; nothing at all for silence', () => {
  const p = probs('##########....##########');
  const segs = speechSegments(p, CHUNK, RATE, p.length * CHUNK, { ...OPTS, padMs: 100 });
  assert.equal(segs.length, 2);
  assert.ok(segs[0]!.end <= segs[1]!.start);
  assert.equal(segs[1]!.start - segs[0]!.end, 0, 'a 128 ms gap shared by two 100 ms pads');
  assert.deepEqual(speechSegments(probs('..........'), CHUNK, RATE, 10 * CHUNK, OPTS), []);
});

test('a file job keeps SPEECH_TAIL_MS after the speech (as a live segment does) and the pad before it; a narrow gap is shared in their proportion', () => {
  const p = probs('....##########..........########..........');
  const total = p.length * CHUNK;
  const tail = (SPEECH_TAIL_MS / 1000) * RATE;
  const [a, b] = speechSegments(p, CHUNK, RATE, total, { ...OPTS, tailMs: SPEECH_TAIL_MS });
  assert.equal(a!.start, 4 * CHUNK - 480, 'the pad in front');
  assert.equal(b!.end, Math.min(total, 32 * CHUNK + tail), 'the tail after the last');
  // A 10-chunk gap (320 ms) is wider than tail + pad: the first keeps its whole tail.
  assert.equal(a!.end, 14 * CHUNK + tail);
  assert.equal(b!.start, 24 * CHUNK - 480);
  // A 4-chunk gap (128 ms) is narrower: shared tail : pad.
  const [c, d] = speechSegments(probs('....##########....########..........'), CHUNK, RATE, 38 * CHUNK, { ...OPTS, tailMs: SPEECH_TAIL_MS });
  const gap = 4 * CHUNK;
  assert.equal(c!.end, 14 * CHUNK + Math.floor((gap * tail) / (tail + 480)));
  assert.equal(d!.start, c!.end);
  // Without tailMs (the CLI), both sides get the pad.
  assert.equal(speechSegments(p, CHUNK, RATE, total, OPTS)[0]!.end, 14 * CHUNK + 480);
});

test('speech windows: silence skipped, near segments joined up to the limit, long speech cut on the frame grid, starts on the hop grid', () => {
  const pcm = new Float32Array(60 * RATE);
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.sin(i * 0.05) * (Math.floor(i / 8000) % 3 === 0 ? 0.01 : 0.3);
  const align = 1280;
  const windows = planSpeechWindows(hopEnergiesOf(pcm, RATE), [
    { start: 1 * RATE + 100, end: 3 * RATE }, { start: 3.5 * RATE, end: 5 * RATE },  // 0.5 s apart: one window
    { start: 20 * RATE, end: 22 * RATE },  // after 15 s of silence: its own
    { start: 30 * RATE + 487, end: 55 * RATE },  // 25 s of speech: cut to ≤ 10 s windows
  ], RATE, 10 * RATE, align, 1);
  assert.deepEqual(windows.slice(0, 2), [{ begin: RATE, end: 5 * RATE, onset: true }, { begin: 20 * RATE, end: 22 * RATE, onset: true }]);
  const long = windows.slice(2);
  assert.ok(long.length >= 3);
  assert.equal(long[0]!.begin, 30 * RATE + 480, 'moved back to the hop grid (10 ms), not the frame grid (80 ms: the gap in front of the first word)');
  assert.equal(long.at(-1)!.end, 55 * RATE);
  for (let i = 1; i < long.length; i++) assert.equal(long[i]!.begin, long[i - 1]!.end, 'a long stretch is cut without gaps');
  for (const w of long) assert.ok(w.end - w.begin <= 10 * RATE);
  // Only the first piece of the long stretch begins at its onset (faded in); the rest at quiet points inside speech.
  assert.deepEqual(long.map((w) => w.onset === true), long.map((_, i) => i === 0));
  const covered = windows.reduce((a, w) => a + w.end - w.begin, 0);
  const unjoined = planSpeechWindows(hopEnergiesOf(pcm, RATE), [{ start: 1 * RATE, end: 3 * RATE }, { start: 3.5 * RATE, end: 5 * RATE }], RATE, 10 * RATE, align);
  assert.deepEqual(unjoined, [{ begin: RATE, end: 3 * RATE, onset: true }, { begin: 3.5 * RATE, end: 5 * RATE, onset: true }], 'by default each segment is its own window');
  assert.ok(covered < 35 * RATE, 'the silent stretches are not decoded');
  // Planned from the file's hop energies, the long stretch is cut where the engine's planner cuts its samples.
  const begin = long[0]!.begin;
  const fromSamples = new WindowPlanner(RATE, 10 * RATE, align);
  fromSamples.push(pcm.subarray(begin, 55 * RATE));
  assert.deepEqual(long.map(({ begin: b, end: e }) => ({ begin: b, end: e })), fromSamples.finish().map((w) => ({ begin: begin + w.begin, end: begin + w.end })));
});

test('hop energies recorded block by block are those of the whole clip', () => {
  const pcm = new Float32Array(RATE + 77);
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.sin(i * 0.013) * (1 + (i % 97) / 97);
  const recorder = new HopEnergyRecorder(RATE);
  for (let i = 0; i < pcm.length; i += 333) recorder.push(pcm.subarray(i, i + 333));
  const blocks = recorder.finish();
  assert.deepEqual(blocks, hopEnergiesOf(pcm, RATE));
  assert.equal(blocks.energies.length, Math.ceil(pcm.length / 160));
  assert.equal(blocks.samples, pcm.length);
});

test('speech windows never overlap: a start moved back to the hop grid past the last window\'s end (a gap the pads shared) takes no audio twice', () => {
  const pcm = new Float32Array(30 * RATE).fill(0.1);
  // A 200 ms pad and a 100 ms pause: the narrow gap is shared, so the second segment starts where the first
  // ends, 55 samples past a 10 ms hop; the two together exceed the window limit, so they are not joined.
  const p = probs(`${'#'.repeat(600)}...${'#'.repeat(60)}${'.'.repeat(20)}`);
  const segments = speechSegments(p, CHUNK, RATE, p.length * CHUNK, { ...OPTS, minSilenceMs: 50, padMs: 200, tailMs: SPEECH_TAIL_MS });
  assert.equal(segments.length, 2);
  assert.equal(segments[1]!.start, segments[0]!.end, 'the gap shared between the pads');
  assert.notEqual(segments[1]!.start % 160, 0);
  const windows = planSpeechWindows(hopEnergiesOf(pcm, RATE), segments, RATE, 20 * RATE, 1280);
  assert.ok(windows.length >= 2);
  for (let i = 1; i < windows.length; i++) assert.ok(windows[i]!.begin >= windows[i - 1]!.end, `window ${i} starts at ${windows[i]!.begin}, before ${windows[i - 1]!.end}`);
  for (const w of windows) assert.ok(w.end - w.begin <= 20 * RATE);
  assert.equal(windows[0]!.begin, segments[0]!.start);
  assert.equal(windows.at(-1)!.end, segments[1]!.end);
});
