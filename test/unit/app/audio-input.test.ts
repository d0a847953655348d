// The one audio input pipeline (app/main/sessions/audio-input.ts) that dictation and meeting tracks share:
// non-finite samples scrubbed on the input frame, before the resampler; the gap-fill bound defined once
// (MAX_GAP_FILL_SEC per gap, wall time since the previous frame, wall time in all, each with slack);
// repeats dropped; a restarted sender numbered from the current position. The last tests show a meeting
// track and a dictation following the same rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingTrack } from '../../../app/main/meeting/meeting-track.js';
import {
  AudioInput, GAP_FILL_SLACK_SEC, MAX_GAP_FILL_SEC, TIMELINE_RATE, gapFillSamples, scrubNonFinite,
} from '../../../app/main/sessions/audio-input.js';
import { StreamingResampler } from '../../../app/shared/resample.js';
import { concat } from '../../support/audio/signals.js';

function collecting(inputRate: number, maxGapFillSec?: number): { input: AudioInput; out: () => Float32Array; warnings: string[] } {
  const pieces: Float32Array[] = [];
  const warnings: string[] = [];
  const log = { ...nullLogger, warn: (message: string) => void warnings.push(message) };
  const input = new AudioInput({ inputRate, label: 'test', log, maxGapFillSec, sink: (pcm) => void pieces.push(pcm) });
  return { input, out: () => concat(...pieces), warnings };
}

function tone(n: number, rate: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / rate));
}

test('scrubNonFinite replaces NaN and ±Infinity by 0, counts them, and leaves the caller\'s frame alone', () => {
  const frame = Float32Array.of(0.5, Number.NaN, -0.25, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
  const { samples, nonFinite } = scrubNonFinite(frame);
  assert.deepEqual([...samples], [0.5, 0, -0.25, 0, 0]);
  assert.equal(nonFinite, 3);
  assert.ok(Number.isNaN(frame[1]!));
  const clean = Float32Array.of(1, 2);
  assert.equal(scrubNonFinite(clean).samples, clean, 'a finite frame is passed on as it is');
});

test('non-finite samples are scrubbed before the resampler: the output is that of the frame with zeros in their place', () => {
  const rate = 48_000;
  const frame = tone(4800, rate);
  frame[1000] = Number.NaN;
  frame[2000] = Number.POSITIVE_INFINITY;
  const { input, out, warnings } = collecting(rate);
  input.push(frame, 0, 0);
  input.push(Float32Array.of(Number.NaN), undefined, 0);
  input.flush(0);
  const got = out();
  const zeroed = frame.slice();
  zeroed[1000] = 0;
  zeroed[2000] = 0;
  const reference = new StreamingResampler(rate, TIMELINE_RATE);
  const expected = [...reference.process(zeroed), ...reference.process(new Float32Array(1)), ...reference.flush()];
  assert.equal(got.length, expected.length);
  assert.ok(got.every(Number.isFinite), 'no NaN spread through the filter');
  assert.deepEqual([...got], expected);
  assert.equal(input.stats.nonFiniteSamples, 3);
  assert.equal(warnings.filter((w) => /non-finite/.test(w)).length, 1, 'logged once');
});

test('gapFillSamples: at most MAX_GAP_FILL_SEC, at most the wall time since the previous frame, at most the wall time in all (each + slack)', () => {
  const rate = 16_000;
  // An hour passed since the previous frame: the constant bounds the gap.
  assert.equal(gapFillSamples(3600 * rate, rate, { now: 3_600_000, previousFrameAt: 0, firstFrameAt: 0 }, 0), MAX_GAP_FILL_SEC * rate);
  // A claimed gap of 10 min right after the previous frame: only the slack is filled.
  assert.equal(gapFillSamples(600 * rate, rate, { now: 1000, previousFrameAt: 1000, firstFrameAt: 0 }, 0), GAP_FILL_SLACK_SEC * rate);
  // 5 s since the previous frame: 5 s + slack.
  assert.equal(gapFillSamples(60 * rate, rate, { now: 10_000, previousFrameAt: 5000, firstFrameAt: 0 }, 0), (5 + GAP_FILL_SLACK_SEC) * rate);
  // What was filled before counts against the input's wall time (10 s + slack − 11 s filled = 1 s).
  assert.equal(gapFillSamples(60 * rate, rate, { now: 10_000, previousFrameAt: 5000, firstFrameAt: 0 }, 11 * rate), 1 * rate);
  // A small gap is filled whole; a custom limit applies.
  assert.equal(gapFillSamples(640, rate, { now: 0, previousFrameAt: 0, firstFrameAt: 0 }, 0), 640);
  assert.equal(gapFillSamples(60 * rate, rate, { now: 60_000, previousFrameAt: 0, firstFrameAt: 0 }, 0, 1), rate);
});

test('AudioInput: a gap is counted and filled within the bound, a repeat counted and dropped, a restarted sender numbers from the current position', () => {
  const { input, out } = collecting(TIMELINE_RATE);
  const frame = new Float32Array(640).fill(0.1);
  input.push(frame, 0, 0);
  input.push(frame, 1280, 0);                        // 640 lost on the way
  input.push(frame, 1600, 0);                        // its first 320 received twice
  input.push(frame, 10 * 60 * TIMELINE_RATE, 0);     // a claimed 10-minute jump with no time passed
  const stats = input.stats;
  assert.equal(stats.samplesRepeated, 320);
  assert.equal(stats.samplesMissing, 640 + (10 * 60 * TIMELINE_RATE - 2240));
  assert.equal(stats.samplesFilled, 640 + GAP_FILL_SLACK_SEC * TIMELINE_RATE - 640, 'the second gap fills only what is left of the slack');
  assert.equal(out().length, 640 * 4 - 320 + stats.samplesFilled);
  assert.equal(input.position, 10 * 60 * TIMELINE_RATE + 640, 'the timeline position follows the sender');
  input.restartSender();
  assert.equal(input.receivedFromSender, 0);
  input.push(frame, 0, 0);
  assert.equal(input.stats.samplesMissing + input.stats.samplesRepeated, 640 + (10 * 60 * TIMELINE_RATE - 2240) + 320, 'a restart is neither loss nor repeat');
  input.padSilence(TIMELINE_RATE + 5, 0);
  assert.equal(input.stats.samplesInterrupted, TIMELINE_RATE + 5);
  assert.equal(input.receivedFromSender, 640 + TIMELINE_RATE + 5);
});

test('a meeting track follows the same rules: its NaN is scrubbed before resampling, its gap fill bounded by wall time', async () => {
  const rate = 48_000;
  const t = new MeetingTrack({
    track: 'others', inputRate: rate, wav: null, log: nullLogger,
    engine: { transcribe: () => Promise.resolve(null) },
    segmenter: { pauseMs: 600, maxSegmentSec: 20, preRollMs: 0, thresholdDb: 10 },
    onFinal: () => undefined, onProblem: () => undefined,
  });
  const frame = tone(4800, rate);
  frame[7] = Number.NaN;
  const started = performance.now();
  t.push(frame, 0);
  assert.ok(Number.isFinite(t.level), 'the level (and what the segmenter saw) stayed finite');
  t.push(tone(4800, rate), 10 * 60 * rate);  // a claimed 10-minute jump: only the slack is filled
  // The fill may also cover the wall time that really passed between the two frames (a busy machine: milliseconds).
  const wallSamples = ((performance.now() - started) / 1000) * TIMELINE_RATE;
  await t.finish();
  const report = t.report();
  assert.equal(report.samplesMissing, 10 * 60 * rate - 4800);
  const filled16k = GAP_FILL_SLACK_SEC * TIMELINE_RATE;
  // (The resampler's tail adds a few dozen samples at the end.)
  const over = report.samples - (2 * 1600 + filled16k);
  assert.ok(over >= -100 && over <= 100 + wallSamples, `${report.samples} samples: two frames and ${GAP_FILL_SLACK_SEC} s of silence (+ ${wallSamples.toFixed(0)} of wall time)`);
});
