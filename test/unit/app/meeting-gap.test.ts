// The microphone's page away mid-meeting (mic-gap.ts, MeetingTrack.padSilence/restartStream): the padding
// follows the meeting clock a little behind it and never goes back, the gap ends where the resumed
// microphone's first frame was captured, the marker names both ends; on a track, the padded silence is in
// the WAV at its place, counted apart from samples lost in transit, and the resumed sender's frames,
// numbered from 0 again, continue the timeline (no repeat, no gap counted).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { EngineTranscript } from '../../../app/engine-process/protocol.js';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingTrack, type TrackPartial } from '../../../app/main/meeting/meeting-track.js';
import { MicInterruption, PAD_LAG_SEC, silenceToReach } from '../../../app/main/meeting/mic-gap.js';
import { WavJournalWriter } from '../../../app/main/meeting/wav-journal.js';
import { decodeWav } from '../../../app/shared/wav.js';
import { concat, quiet, RATE, speechLike } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

test('silenceToReach: samples from the track end to the target at the input rate, never negative', () => {
  assert.equal(silenceToReach(10, 12.5, 16000), 40000);
  assert.equal(silenceToReach(10, 10.5, 48000), 24000);
  assert.equal(silenceToReach(12, 11, 16000), 0, 'a track ahead of the target gets nothing (silence is never taken back)');
});

test('an interruption: padding stays PAD_LAG_SEC behind the clock, the gap ends one frame before the first resumed frame arrived, the marker names both ends', () => {
  const gap = new MicInterruption(62.5, 'the page was reloaded or crashed');
  assert.equal(gap.padTarget(62.6), 62.5, 'never before its start');
  assert.equal(gap.padTarget(70), 70 - PAD_LAG_SEC);
  const to = gap.resume(75.04, 640, 16000);
  assert.ok(Math.abs(to - 75) < 1e-9, `${to}`);
  const marker = gap.marker();
  assert.equal(marker.at, 62.5);
  assert.match(marker.text, /^The microphone was interrupted from 01:02 to 01:15 \(the page was reloaded or crashed\); the recording holds silence there\.$/);
  assert.match(new MicInterruption(5, 'x').marker(null).text, /from 00:05 to the end of the meeting/);
  assert.match(new MicInterruption(5, 'x', 'system audio').marker(6).text, /^The system audio was interrupted from 00:05 to 00:06/);
});

class StandInDecoder {
  gate: Promise<void> | null = null;
  readonly calls: { samples: number; priority: string; skipIfBusy: boolean }[] = [];
  busy = false;
  async transcribe(pcm: Float32Array, _o: unknown, how: { priority: string; skipIfBusy?: boolean }): Promise<EngineTranscript | null> {
    this.calls.push({ samples: pcm.length, priority: how.priority, skipIfBusy: how.skipIfBusy === true });
    if (how.skipIfBusy && this.busy) return null;
    if (this.gate) await this.gate;
    return { text: `${pcm.length} samples`, words: [], devicesRan: ['CPU'] } as unknown as EngineTranscript;
  }
}

const SEGMENTER = { pauseMs: 600, maxSegmentSec: 20, preRollMs: 0, thresholdDb: 10 };

test('a track whose sender went away: silence at its place in the WAV, counted as interrupted; the new sender numbers from 0 and the timeline goes on', async () => {
  const dir = scratch('meeting-gap-track');
  const wav = await WavJournalWriter.create(join(dir, 'you.wav'), { sampleRate: RATE, autoSync: false });
  const t = new MeetingTrack({ track: 'you', inputRate: RATE, wav, engine: new StandInDecoder(), segmenter: SEGMENTER, log: nullLogger, onFinal: () => undefined, onProblem: () => undefined });
  const before = concat(quiet(0.5, 1), speechLike(1, 2));
  for (let at = 0; at < before.length; at += 640) t.push(before.slice(at, at + 640), at);
  t.padSilence(RATE * 2.5);
  t.restartStream();
  assert.equal(t.receivedSamples, 0, 'the new sender has sent nothing yet');
  const after = concat(speechLike(1, 3), quiet(1, 4));
  for (let at = 0; at < after.length; at += 640) t.push(after.slice(at, at + 640), at);
  await t.finish();
  const report = t.report();
  assert.equal(report.samplesInterrupted, RATE * 2.5);
  assert.equal(report.samplesMissing + report.samplesRepeated, 0, 'the restart is neither a loss nor a repeat');
  assert.equal(report.samples, before.length + RATE * 2.5 + after.length);
  const onDisk = decodeWav(readFileSync(join(dir, 'you.wav'))).samples;
  assert.equal(onDisk.length, report.samples);
  for (let i = before.length; i < before.length + RATE * 2.5; i += 101) assert.equal(onDisk[i], 0);
  const k = before.length + RATE * 2.5 + 1234;
  assert.ok(Math.abs(onDisk[k]! - after[1234]!) <= 1 / 32767, 'the resumed audio sits right after the gap');
});

test('partials: the open segment re-decoded at file priority with skipIfBusy, in order, never after its final; skipped while the engine is busy', async () => {
  const engine = new StandInDecoder();
  const partials: TrackPartial[] = [];
  const events: string[] = [];
  const t = new MeetingTrack({
    track: 'others', inputRate: RATE, wav: null, engine, segmenter: SEGMENTER, log: nullLogger, partialIntervalMs: 100,
    onFinal: (f) => events.push(`final ${f.segmentId}`),
    onPartial: (p) => {
      partials.push(p);
      events.push(`partial ${p.segmentId}`);
    },
    onProblem: () => undefined,
  });
  const audio = concat(quiet(0.5, 1), speechLike(2, 2), quiet(1.2, 3), speechLike(1.5, 4), quiet(1.2, 5));
  for (let at = 0; at < audio.length; at += 640) {
    // Frames at real-time pace for the partial cadence (40 ms each, here 10 ms: the interval is 100 ms).
    t.push(audio.slice(at, at + 640), at);
    await new Promise((r) => setTimeout(r, 10));
  }
  await t.finish();
  const partialCalls = engine.calls.filter((c) => c.skipIfBusy);
  assert.ok(partialCalls.length >= 2 && partialCalls.every((c) => c.priority === 'file'), JSON.stringify(engine.calls));
  assert.ok(partials.some((p) => p.segmentId === 0) && partials.some((p) => p.segmentId === 1), events.join(', '));
  for (const id of [0, 1]) {
    const lastPartial = events.lastIndexOf(`partial ${id}`);
    const final = events.indexOf(`final ${id}`);
    assert.ok(lastPartial >= 0 && final > lastPartial, `segment ${id}: ${events.join(', ')}`);
  }
  assert.ok(partials.every((p, i) => i === 0 || p.text !== partials[i - 1]!.text || p.segmentId !== partials[i - 1]!.segmentId), 'an unchanged text is not sent again');

  const busy = new StandInDecoder();
  busy.busy = true;
  const none: TrackPartial[] = [];
  const t2 = new MeetingTrack({ track: 'you', inputRate: RATE, wav: null, engine: busy, segmenter: SEGMENTER, log: nullLogger, partialIntervalMs: 100, onFinal: () => undefined, onPartial: (p) => none.push(p), onProblem: () => undefined });
  for (let at = 0; at < audio.length; at += 640) {
    t2.push(audio.slice(at, at + 640), at);
    if (at % 6400 === 0) await new Promise((r) => setTimeout(r, 20));
  }
  await t2.finish();
  assert.equal(none.length, 0, 'no partial while the engine answers busy');

  // Live dictation running: no meeting partial decode is even asked for (it could not be preempted).
  const idle = new StandInDecoder();
  const t3 = new MeetingTrack({
    track: 'you', inputRate: RATE, wav: null, engine: idle, segmenter: SEGMENTER, log: nullLogger, partialIntervalMs: 100,
    partialsPaused: () => true, onFinal: () => undefined, onPartial: () => assert.fail('no partial while dictation is live'), onProblem: () => undefined,
  });
  for (let at = 0; at < audio.length; at += 640) {
    t3.push(audio.slice(at, at + 640), at);
    if (at % 6400 === 0) await new Promise((r) => setTimeout(r, 20));
  }
  await t3.finish();
  assert.equal(idle.calls.filter((c) => c.skipIfBusy).length, 0);
  assert.equal(idle.calls.length, 2, 'the finals still run');
});
