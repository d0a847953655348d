// The Segmenter with an external detector (a trained VAD's probability per 32 ms window, as Silero gives
// them): speech opens at the threshold with pre-roll, holds through dips above threshold − 0.15, closes
// after the pause; verdicts may arrive later than the audio and in any grouping; a lost detector hands the
// waiting windows and the rest to the energy threshold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_DICTATION } from '../../../app/ipc/settings.js';
import { fileVadOptions } from '../../../app/main/files/file-vad-options.js';
import { Segmenter, trainedVadSegmenterOptions, type SegmentEvent, type SegmenterOptions } from '../../../app/main/sessions/segmenter.js';
import { speechSegments } from '../../../app/shared/vad-segments.js';
import { RATE, concat, quiet, speechLike } from '../../support/audio/signals.js';

const WINDOW = 512;
const OPTS: SegmenterOptions = {
  sampleRate: RATE, pauseMs: 600, maxSegmentSec: 15, preRollMs: 300, thresholdDb: 10, detector: 'external', windowMs: 32, speechThreshold: 0.5,
};

/** Probabilities for windows: speech (0.9) in [from, to) seconds, 0.05 elsewhere. */
function verdicts(totalSec: number, speech: [number, number][], level = 0.9): Float32Array {
  const n = Math.floor((totalSec * RATE) / WINDOW);
  const out = new Float32Array(n).fill(0.05);
  for (const [a, b] of speech) for (let i = Math.floor((a * RATE) / WINDOW); i < Math.floor((b * RATE) / WINDOW); i++) out[i] = level;
  return out;
}

function run(audio: Float32Array, probs: Float32Array, group: number, options: SegmenterOptions = OPTS): SegmentEvent[] {
  const seg = new Segmenter(options);
  const events: SegmentEvent[] = [];
  // All audio first (verdicts lag behind it), then the verdicts in groups of `group`.
  for (let i = 0; i < audio.length; i += 640) assert.deepEqual(seg.push(audio.subarray(i, i + 640)), [], 'no decision before a verdict');
  for (let i = 0; i < probs.length; i += group) events.push(...seg.decide(probs.subarray(i, i + group)));
  events.push(...seg.finish());
  return events;
}

test('speech windows open a segment with pre-roll and close it after the pause, whatever the verdicts\' grouping', () => {
  const audio = new Float32Array(6 * RATE);  // the samples do not matter to an external detector
  const probs = verdicts(6, [[1, 2.5], [4, 4.6]]);
  const one = run(audio, probs, 1);
  assert.deepEqual(run(audio, probs, 7), one);
  const closes = one.filter((e): e is Extract<SegmentEvent, { type: 'close' }> => e.type === 'close');
  assert.equal(closes.length, 2);
  const onset = Math.floor(RATE / WINDOW) * WINDOW;
  assert.equal(closes[0]!.start, onset - 0.3 * RATE, 'pre-roll before the first speech window');
  assert.equal(closes[0]!.reason, 'pause');
  assert.ok(closes[0]!.end > 2.5 * RATE - WINDOW && closes[0]!.end < 2.9 * RATE);
  assert.ok(closes[1]!.start >= closes[0]!.end);
});

test('a dip to 0.4 inside speech does not end it (threshold − 0.15 holds); below that, a long one does', () => {
  const audio = new Float32Array(5 * RATE);
  const probs = verdicts(5, [[1, 4]]);
  for (let i = Math.floor((2 * RATE) / WINDOW); i < Math.floor((2.8 * RATE) / WINDOW); i++) probs[i] = 0.4;
  assert.equal(run(audio, probs, 3).filter((e) => e.type === 'close').length, 1);
  for (let i = Math.floor((2 * RATE) / WINDOW); i < Math.floor((2.8 * RATE) / WINDOW); i++) probs[i] = 0.3;
  assert.equal(run(audio, probs, 3).filter((e) => e.type === 'close').length, 2);
});

test('at a low threshold (0.15 and below: threshold − 0.15 ≤ 0) speech still ends after a pause: below the release level\'s floor, 0.01', () => {
  // A word (20 windows at 0.9), 10 s of Silero's silence (0.001), the word again, 10 s of silence: two
  // segments ended by the pause, not one cut by the 15 s cap.
  const silence = Math.ceil((10 * RATE) / WINDOW);
  const probs = Float32Array.from([...new Array(20).fill(0.9), ...new Array(silence).fill(0.001), ...new Array(20).fill(0.9), ...new Array(silence).fill(0.001)]);
  const second = (20 + silence) * WINDOW;
  for (const speechThreshold of [0.05, 0.1, 0.15]) {
    const closes = run(new Float32Array(probs.length * WINDOW), probs, 5, { ...OPTS, speechThreshold })
      .filter((e): e is Extract<SegmentEvent, { type: 'close' }> => e.type === 'close');
    assert.deepEqual(closes.map((c) => [c.speechEnd, c.reason]), [[20 * WINDOW, 'pause'], [second + 20 * WINDOW, 'pause']], `threshold ${speechThreshold}`);
  }
});

test('no verdict above the threshold: no segment (noise is not speech to a trained VAD)', () => {
  const audio = concat(quiet(1, 1), speechLike(2, 2), quiet(1, 3));  // loud: the energy VAD would open on it
  assert.deepEqual(run(audio, verdicts(4, [], 0), 5), []);
});

test('fallBackToEnergy decides the waiting windows by energy and every later one', () => {
  const audio = concat(quiet(1, 1), speechLike(1.5, 2), quiet(1.5, 3));
  const seg = new Segmenter(OPTS);
  seg.push(audio.subarray(0, RATE));
  assert.deepEqual(seg.decide(verdicts(0.5, [])), []);
  seg.fallBackToEnergy();
  assert.equal(seg.usesExternalDetector, false);
  const events = [...seg.push(audio.subarray(RATE)), ...seg.finish()];
  const closes = events.filter((e) => e.type === 'close');
  assert.equal(closes.length, 1, 'the energy VAD found the burst');
});

test('an onset that never reaches the confirm level (threshold + 0.15) opens no segment; a confirmed one starts at its first window', () => {
  const audio = new Float32Array(6 * RATE);
  // Silero on a held tone: just above 0.5 for 320 ms (the bench's non-speech set), never 0.65.
  assert.deepEqual(run(audio, verdicts(6, [[1, 1.32]], 0.58), 1), [], 'no segment, so no final, for a stretch Silero is unsure of');
  assert.deepEqual(run(audio, verdicts(6, [[1, 4]], 0.6), 4), []);
  const counted = new Segmenter(OPTS);
  counted.push(audio);
  counted.decide(verdicts(6, [[1, 1.32], [3, 3.5]], 0.58));
  counted.finish();
  assert.equal(counted.unconfirmedOnsets, 2, 'each unsure stretch long enough to open a segment is counted (Devices)');
  // Unsure for 1.5 s before speech: the segment starts at most a second before the confirming window (the
  // session keeps about a second of audio before a segment), less the pre-roll.
  const late = verdicts(6, [[1, 2.5]], 0.58);
  for (let i = Math.floor((2.5 * RATE) / WINDOW); i < Math.floor((3.5 * RATE) / WINDOW); i++) late[i] = 0.95;
  const [lateOpen] = run(audio, late, 1).filter((e): e is Extract<SegmentEvent, { type: 'open' }> => e.type === 'open');
  const confirmedAt = Math.floor((2.5 * RATE) / WINDOW) * WINDOW;
  assert.ok(lateOpen && lateOpen.onset >= confirmedAt + WINDOW - RATE && lateOpen.onset < confirmedAt, JSON.stringify(lateOpen));
  assert.equal(lateOpen.start, lateOpen.onset - 0.3 * RATE);
  // Unsure for 200 ms, then speech: the segment opens once confirmed and starts at the unsure onset (less the pre-roll).
  const probs = verdicts(6, [[1, 1.2]], 0.58);
  for (let i = Math.floor((1.2 * RATE) / WINDOW); i < Math.floor((2.5 * RATE) / WINDOW); i++) probs[i] = 0.95;
  const opens = run(audio, probs, 1).filter((e) => e.type === 'open');
  assert.equal(opens.length, 1);
  const onset = Math.floor(RATE / WINDOW) * WINDOW;
  assert.deepEqual(opens[0], { type: 'open', start: onset - 0.3 * RATE, onset });
});

test('with Silero deciding, a segment starts speechPadMs before its onset, not the pre-roll; after a fallback the energy VAD\'s onsets get the pre-roll', () => {
  const audio = concat(quiet(1, 1), speechLike(1.5, 2), quiet(1.5, 3), speechLike(1.5, 4), quiet(1.5, 5));
  const seg = new Segmenter({ ...OPTS, speechPadMs: 30 });
  const events: SegmentEvent[] = [];
  seg.push(audio.subarray(0, Math.floor(4 * RATE / WINDOW) * WINDOW));
  events.push(...seg.decide(verdicts(4, [[1, 2.5]])));
  const onset = Math.floor(RATE / WINDOW) * WINDOW;
  assert.deepEqual(events.find((e) => e.type === 'open'), { type: 'open', start: onset - 480, onset });
  // The VAD stream is lost: the second phrase (at 4 s) is found by energy, with the 300 ms pre-roll.
  events.push(...seg.fallBackToEnergy(), ...seg.push(audio.subarray(Math.floor(4 * RATE / WINDOW) * WINDOW)), ...seg.finish());
  const second = events.filter((e): e is Extract<SegmentEvent, { type: 'open' }> => e.type === 'open')[1];
  assert.ok(second, JSON.stringify(events));
  assert.equal(second.onset - second.start, 0.3 * RATE);
});

test('with a minimum speech, a confirmed blip shorter than it opens nothing; speech that long opens a segment at its onset, holding through a dip to the release level', () => {
  const audio = new Float32Array(6 * RATE);
  const options: SegmenterOptions = { ...OPTS, speechPadMs: 30, minSpeechMs: 160 };
  // 96 ms at 0.9 (the default onset, 60 ms, would open on it).
  assert.equal(run(audio, verdicts(6, [[1, 1.1]]), 1).filter((e) => e.type === 'open').length, 1, 'the onset alone opens it');
  assert.deepEqual(run(audio, verdicts(6, [[1, 1.1]]), 1, options), [], 'shorter than the minimum speech: no segment, no final');
  // 256 ms, its second window at 0.4 (between the release level, 0.35, and the threshold): one onset, not two.
  const word = verdicts(6, [[1, 1.25]]);
  const first = Math.floor(RATE / WINDOW);
  word[first + 1] = 0.4;
  const events = run(audio, word, 3, options);
  const onset = first * WINDOW;
  assert.deepEqual(events.filter((e) => e.type === 'open'), [{ type: 'open', start: onset - 480, onset }]);
  assert.equal(events.filter((e) => e.type === 'close').length, 1);
});

test('a confirmed onset stays at the speech\'s start while a long minimum speech is counted: the segment starts there and its audio is kept', () => {
  // 6.4 s of speech from sample 25 600 (window 50), confirmed at its first window.
  const probs = verdicts(10, [[1.6, 8]]);
  for (const minSpeechMs of [160, 1000, 2000, 5000]) {
    const seg = new Segmenter({ ...OPTS, speechPadMs: 30, minSpeechMs });
    seg.push(new Float32Array(probs.length * WINDOW));
    let kept = 0;
    const opens: Extract<SegmentEvent, { type: 'open' }>[] = [];
    for (let i = 0; i < probs.length; i++) {
      if (opens.length === 0) kept = Math.max(kept, seg.earliestStart);
      opens.push(...seg.decide(probs.subarray(i, i + 1)).filter((e): e is Extract<SegmentEvent, { type: 'open' }> => e.type === 'open'));
    }
    assert.deepEqual(opens, [{ type: 'open', start: 25_120, onset: 25_600 }], `minimum speech ${minSpeechMs} ms`);
    assert.ok(kept <= 25_120, `minimum speech ${minSpeechMs} ms: audio from ${kept} on was all that had to be kept`);
  }
});

test('with a minimum speech, dips shorter than the minimum silence do not restart it: live keeps the phrases a file keeps, and drops what a file drops', () => {
  /** Windows at 0.9 from window 32: `count` stretches of `length` windows, `gap` windows apart; 0.05 elsewhere. */
  const bursts = (count: number, length: number, gap: number): Float32Array => {
    const probs = new Float32Array(32 + count * (length + gap) + 100).fill(0.05);
    for (let k = 0; k < count; k++) probs.fill(0.9, 32 + k * (length + gap), 32 + k * (length + gap) + length);
    return probs;
  };
  /** Where the live cut's and the file cut's segments start with the default settings but Shortest speech. */
  const cuts = (probs: Float32Array, vadMinSpeechMs: number) => {
    const d = { ...DEFAULT_DICTATION, vadMinSpeechMs };
    const live = run(new Float32Array(probs.length * WINDOW), probs, 4, { ...OPTS, pauseMs: d.pauseMs, ...trainedVadSegmenterOptions(d) })
      .filter((e): e is Extract<SegmentEvent, { type: 'close' }> => e.type === 'close').map((c) => c.start);
    const file = speechSegments(probs, WINDOW, RATE, probs.length * WINDOW, fileVadOptions(d)).map((f) => f.start);
    return { live, file };
  };
  for (const minSpeechMs of [600, 1000]) {
    // Four 512 ms phrases 160 ms apart (2.7 s of speech): one segment from the first word, live as in the file.
    assert.deepEqual(cuts(bursts(4, 16, 5), minSpeechMs), { live: [32 * WINDOW - 480], file: [32 * WINDOW - 480] }, `minimum speech ${minSpeechMs} ms`);
    // The same phrases 320 ms apart (more than the minimum silence), each shorter than the minimum: none.
    assert.deepEqual(cuts(bursts(4, 16, 10), minSpeechMs), { live: [], file: [] }, `minimum speech ${minSpeechMs} ms, phrases apart`);
  }
  // Three 256 ms words 256 ms apart: 1.28 s from the first to the last, 768 ms of it voiced. Speech is measured
  // from its start to its end, as in the file: kept at 1000 ms.
  assert.deepEqual(cuts(bursts(3, 8, 8), 1000), { live: [32 * WINDOW - 480], file: [32 * WINDOW - 480] });
  // Clicks (one window each) 400 ms apart: no segment with the default 160 ms either.
  assert.deepEqual(cuts(bursts(8, 1, 12), 160), { live: [], file: [] });
  // A minimum between two window lengths is compared in samples as in the file: 160 ms of speech is short of 170 ms
  // (rounded to 5 windows it passed live), 192 ms is not.
  assert.deepEqual(cuts(bursts(1, 5, 0), 170), { live: [], file: [] });
  assert.deepEqual(cuts(bursts(1, 6, 0), 170), { live: [32 * WINDOW - 480], file: [32 * WINDOW - 480] });
});

test('an onset Silero is not yet sure of survives a short dip as in a file: the segment starts at the soft speech before it, not after the dip', () => {
  // 320 ms at 0.55 (speech, below the confirm level 0.65), a 96 ms dip, then 640 ms of sure speech.
  const probs = new Float32Array(32 + 10 + 3 + 20 + 60).fill(0.05);
  probs.fill(0.55, 32, 42);
  probs.fill(0.9, 45, 65);
  const d = { ...DEFAULT_DICTATION };
  const live = run(new Float32Array(probs.length * WINDOW), probs, 4, { ...OPTS, pauseMs: d.pauseMs, ...trainedVadSegmenterOptions(d) })
    .filter((e): e is Extract<SegmentEvent, { type: 'close' }> => e.type === 'close').map((c) => c.start);
  const file = speechSegments(probs, WINDOW, RATE, probs.length * WINDOW, fileVadOptions(d)).map((f) => f.start);
  assert.deepEqual(file, [32 * WINDOW - 480], 'the file keeps the soft start');
  assert.deepEqual(live, file, 'live as the file (it started after the dip: 45 windows in)');
});
