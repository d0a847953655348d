// One meeting track without an engine process (a stand-in decoder, as the session tests use): exact sample
// accounting (gaps filled with silence and counted, repeats dropped and counted, the WAV holding exactly
// the timeline), segments at pauses decoded once each at file priority in order, bounded memory, and a
// decoder that cannot keep up: segments past MAX_QUEUED_SEC are left undecoded and said so.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DecodePriority } from '../../../app/main/engine/engine-host.js';
import type { EngineTranscript } from '../../../app/engine-process/protocol.js';
import { nullLogger } from '../../../app/main/log.js';
import { MAX_QUEUED_SEC, MeetingTrack, type TrackFinal } from '../../../app/main/meeting/meeting-track.js';
import { WavJournalWriter } from '../../../app/main/meeting/wav-journal.js';
import { decodeWav } from '../../../app/shared/wav.js';
import { concat, quiet, RATE, speechLike } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

class StandInDecoder {
  readonly priorities: DecodePriority[] = [];
  gate: Promise<void> | null = null;
  async transcribe(pcm: Float32Array, _o: unknown, how: { priority: DecodePriority }): Promise<EngineTranscript> {
    this.priorities.push(how.priority);
    if (this.gate) await this.gate;
    return { text: `${pcm.length} samples`, words: [{ text: 'w', start: 0.1, end: 0.2, confidence: 1 }], devicesRan: ['CPU'] } as unknown as EngineTranscript;
  }
}

const SEGMENTER = { pauseMs: 600, maxSegmentSec: 20, preRollMs: 0, thresholdDb: 10 };

async function track(dir: string, engine: StandInDecoder, problems: string[] = []) {
  const finals: TrackFinal[] = [];
  const wav = await WavJournalWriter.create(join(dir, 'you.wav'), { sampleRate: RATE, autoSync: false });
  const t = new MeetingTrack({
    track: 'you', inputRate: RATE, wav, engine, segmenter: SEGMENTER, log: nullLogger,
    onFinal: (f) => finals.push(f), onProblem: (code) => problems.push(code),
  });
  return { t, finals, file: join(dir, 'you.wav') };
}

function* frames(audio: Float32Array, n = 640): Generator<[Float32Array, number]> {
  for (let at = 0; at < audio.length; at += n) yield [audio.slice(at, at + n), at];
}

test('gaps are filled with silence and counted, repeats dropped and counted; the WAV holds exactly the timeline', async () => {
  const engine = new StandInDecoder();
  const { t, file } = await track(scratch('meeting-track-gaps'), engine);
  const audio = concat(quiet(1, 1), speechLike(2, 2), quiet(1, 3));
  let k = 0;
  for (const [frame, at] of frames(audio)) {
    k += 1;
    if (k === 10) continue; // lost on the way: the next frame's position says so
    t.push(frame, at);
    if (k === 20) t.push(frame, at); // sent twice
  }
  await t.finish();
  const report = t.report();
  assert.equal(report.samplesMissing, 640);
  assert.equal(report.samplesRepeated, 640);
  assert.equal(report.samples, audio.length, 'the lost frame became silence of its length; the repeat added nothing');
  const onDisk = decodeWav(readFileSync(file)).samples;
  assert.equal(onDisk.length, audio.length);
  for (let i = 9 * 640; i < 10 * 640; i += 1) assert.equal(onDisk[i], 0);
  assert.ok(Math.abs(onDisk[30 * 640 + 5]! - audio[30 * 640 + 5]!) <= 1 / 32767);
});

test('each phrase is one segment, decoded once at file priority, finals in order with their cut points; memory stays bounded', async () => {
  const engine = new StandInDecoder();
  const { t, finals } = await track(scratch('meeting-track-segments'), engine);
  const parts = [quiet(1, 1)];
  for (let i = 0; i < 30; i += 1) parts.push(speechLike(2 + (i % 3) * 0.5, 10 + i), quiet(1.2, 100 + i));
  const audio = concat(...parts);
  let peak = 0;
  for (const [frame, at] of frames(audio)) {
    t.push(frame, at);
    peak = Math.max(peak, t.memoryBytes);
    if (at % (RATE * 5) === 0) await new Promise((r) => setImmediate(r));
  }
  await t.finish();
  assert.equal(finals.length, 30);
  assert.ok(engine.priorities.every((p) => p === 'file'), 'meeting decodes never take live dictation\'s priorities');
  for (let i = 1; i < finals.length; i += 1) assert.ok(finals[i]!.startSample >= finals[i - 1]!.endSample && finals[i]!.segmentId === i);
  for (const f of finals) assert.equal(f.text, `${f.endSample - f.startSample} samples`);
  assert.ok(finals[3]!.words[0]!.start > finals[3]!.startSample / RATE, 'word times are in track seconds');
  // ~100 s of audio went through; what is held is a few seconds' worth (open segment, store chunks, pending WAV).
  assert.ok(peak < 2_000_000, `peak ${peak} bytes`);
});

test('a decoder that does not keep up: past MAX_QUEUED_SEC of waiting audio, segments are left undecoded (audio kept) and said so', async () => {
  const engine = new StandInDecoder();
  let open = (): void => undefined;
  engine.gate = new Promise<void>((r) => (open = r));
  const problems: string[] = [];
  const { t, finals } = await track(scratch('meeting-track-behind'), engine, problems);
  const phrase = concat(speechLike(19, 5), quiet(1, 6));
  const rounds = Math.ceil(MAX_QUEUED_SEC / 20) + 3;
  for (let r = 0; r < rounds; r += 1) for (const [frame] of frames(phrase)) t.push(frame);
  assert.ok(t.memoryBytes < (MAX_QUEUED_SEC + 30) * RATE * 4 * 1.2, `held ${t.memoryBytes} bytes`);
  assert.deepEqual([...new Set(problems)], ['MEETING_BEHIND']);
  open();
  await t.finish();
  const report = t.report();
  assert.ok(report.segments < rounds && finals.length === report.segments, `${report.segments} decoded of ${rounds}`);
  assert.equal(report.samples, rounds * phrase.length, 'every sample is on the track (and in the WAV) all the same');
});

test('the confidence floor (a silence guard) drops a final\'s words below it, and its text is the kept words\'', async () => {
  const engine = {
    async transcribe(): Promise<EngineTranscript> {
      return { text: 'one uh two', words: [{ text: 'one', start: 0.1, end: 0.3, confidence: 0.9 }, { text: 'uh', start: 0.3, end: 0.5, confidence: 0.2 }, { text: 'two', start: 0.5, end: 0.7, confidence: 0.6 }], devicesRan: ['CPU'] } as unknown as EngineTranscript;
    },
  };
  const finalsWith = async (minWordConfidence: number | undefined): Promise<TrackFinal[]> => {
    const finals: TrackFinal[] = [];
    const wav = await WavJournalWriter.create(join(scratch(`meeting-track-floor-${minWordConfidence}`), 'you.wav'), { sampleRate: RATE, autoSync: false });
    const t = new MeetingTrack({
      track: 'you', inputRate: RATE, wav, engine, segmenter: SEGMENTER, log: nullLogger, minWordConfidence,
      onFinal: (f) => finals.push(f), onProblem: () => undefined,
    });
    for (const [frame, at] of frames(concat(quiet(1, 1), speechLike(2, 2), quiet(1, 3)))) t.push(frame, at);
    await t.finish();
    return finals;
  };
  const kept = await finalsWith(0.5);
  assert.equal(kept.length, 1);
  assert.equal(kept[0]!.text, 'one two');
  assert.deepEqual(kept[0]!.words.map((w) => w.text), ['one', 'two']);
  const all = await finalsWith(undefined);
  assert.equal(all[0]!.text, 'one uh two', 'off when not set');
  assert.equal(all[0]!.words.length, 3);
});
