// Live sources with Silero deciding (detector 'external') keep the audio a segment may still start at: a
// segment opens up to a second after its onset began (the onset's confirm level, vad-segments.ts), or once its
// minimum speech has been counted however long that is, and starts speechPadMs before it, whatever the
// pre-roll setting (which only the energy VAD uses).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ONSET_FADE_MS } from '../../../app/shared/onset-fade.js';
import { setImmediate as tick } from 'node:timers/promises';
import type { EngineTranscribeOptions, EngineTranscript } from '../../../app/engine-process/protocol.js';
import type { EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import { EventBus } from '../../../app/main/events.js';
import { nullLogger, type Logger } from '../../../app/main/log.js';
import { SessionManager, type SessionEngine } from '../../../app/main/sessions/session-manager.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import type { ModelInfo } from '../../../native/index.js';
import { MeetingTrack, type TrackFinal } from '../../../app/main/meeting/meeting-track.js';
import { WavJournalWriter } from '../../../app/main/meeting/wav-journal.js';
import { Segmenter, trainedVadSegmenterOptions } from '../../../app/main/sessions/segmenter.js';
import type { SessionVad } from '../../../app/main/sessions/vad-feed.js';
import { RATE } from '../../support/audio/signals.js';
import { scratch } from './tmp.js';

const WINDOW = 512;

/** Silero as a schedule: window i's probability, one per 512 samples pushed, answered at once. */
function scheduledVad(probability: (window: number) => number): SessionVad {
  let samples = 0;
  return {
    push: (pcm) => {
      const from = Math.floor(samples / WINDOW);
      samples += pcm.length;
      const to = Math.floor(samples / WINDOW);
      return Promise.resolve(Float32Array.from({ length: to - from }, (_, k) => probability(from + k)));
    },
    close: () => undefined,
  };
}

/**
 * A phrase whose onset Silero is unsure of for over a second (0.55: speech, below the confirm level 0.65)
 * before it confirms it at window 157 (ends at sample 80 896): the segment opens there with its onset moved
 * to a second before (64 896) and starts the 200 ms pad before that (61 696).
 */
const unsureOnset = (i: number): number => (i >= 120 && i < 157 ? 0.55 : i >= 157 && i < 175 ? 0.9 : 0.05);
const SETTINGS = { vadSpeechThreshold: 0.5, vadSpeechPadMs: 200, vadMinSpeechMs: 160, vadMinSilenceMs: 300 };

test('the segmenter says where a segment may still start: never after the start a later one gets', () => {
  const seg = new Segmenter({ sampleRate: RATE, pauseMs: 600, maxSegmentSec: 20, preRollMs: 0, thresholdDb: 10, ...trainedVadSegmenterOptions(SETTINGS) });
  // A confirmed phrase first, then the unsure onset.
  const probs = Float32Array.from({ length: 260 }, (_, i) => (i >= 10 && i < 40 ? 0.9 : unsureOnset(i)));
  seg.push(new Float32Array(probs.length * WINDOW));
  let said = 0;
  const starts: number[] = [];
  for (let i = 0; i < probs.length; i++) {
    said = Math.max(said, seg.earliestStart);
    const opened = seg.decide(probs.subarray(i, i + 1)).find((e) => e.type === 'open');
    if (opened) {
      starts.push(opened.start);
      assert.ok(said <= opened.start, `${said} was said before a segment opened at ${opened.start}`);
    }
  }
  assert.equal(starts.length, 2);
  assert.equal(starts[1], 61_696);
});

test('a meeting track with Silero and no pre-roll decodes a segment\'s audio from its start, not released silence', async () => {
  const pcms: Float32Array[] = [];
  const engine = {
    transcribe: async (pcm: Float32Array): Promise<EngineTranscript> => {
      pcms.push(pcm);
      return { text: 'w', words: [], devicesRan: ['CPU'] } as unknown as EngineTranscript;
    },
  };
  const finals: TrackFinal[] = [];
  const wav = await WavJournalWriter.create(join(scratch('vad-release-meeting'), 'you.wav'), { sampleRate: RATE, autoSync: false });
  const track = new MeetingTrack({
    track: 'you', inputRate: RATE, wav, engine, log: nullLogger, onFinal: (f) => finals.push(f), onProblem: () => undefined,
    segmenter: { pauseMs: 600, maxSegmentSec: 20, preRollMs: 0, thresholdDb: 10, ...trainedVadSegmenterOptions(SETTINGS) },
    vad: scheduledVad(unsureOnset),
  });
  // 8 s of audio that is never silent: a released sample would read as 0.
  const audio = new Float32Array(8 * RATE).fill(0.1);
  for (let at = 0; at < audio.length; at += 640) {
    track.push(audio.slice(at, at + 640), at);
    await tick();
  }
  await track.finish();
  assert.equal(finals.length, 1);
  assert.equal(finals[0]!.startSample, 61_696);
  const zeros = pcms[0]!.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
  assert.equal(zeros, 0, `${zeros} samples at the segment's start had been released`);
});

test('a meeting track with a minimum speech over a second decodes a segment from its onset, not from a second before it opened', async () => {
  // 6.4 s of speech from window 50 (sample 25 600), confirmed at once: the segment starts the 200 ms pad before.
  const speech = (i: number): number => (i >= 50 && i < 250 ? 0.9 : 0.05);
  for (const vadMinSpeechMs of [2000, 5000]) {
    const pcms: Float32Array[] = [];
    const fades: (number | undefined)[] = [];
    const finals: TrackFinal[] = [];
    const engine = {
      transcribe: async (pcm: Float32Array, options: EngineTranscribeOptions): Promise<EngineTranscript> => {
        pcms.push(pcm);
        fades.push(options.onsetFadeMs);
        return { text: 'w', words: [], devicesRan: ['CPU'] } as unknown as EngineTranscript;
      },
    };
    const wav = await WavJournalWriter.create(join(scratch(`vad-release-min-speech-${vadMinSpeechMs}`), 'you.wav'), { sampleRate: RATE, autoSync: false });
    const track = new MeetingTrack({
      track: 'you', inputRate: RATE, wav, engine, log: nullLogger, onFinal: (f) => finals.push(f), onProblem: () => undefined,
      segmenter: { pauseMs: 600, maxSegmentSec: 20, preRollMs: 0, thresholdDb: 10, ...trainedVadSegmenterOptions({ ...SETTINGS, vadMinSpeechMs }) },
      vad: scheduledVad(speech),
    });
    const audio = new Float32Array(10 * RATE).fill(0.1);
    for (let at = 0; at < audio.length; at += 640) {
      track.push(audio.slice(at, at + 640), at);
      await tick();
    }
    await track.finish();
    assert.equal(finals.length, 1);
    assert.equal(finals[0]!.startSample, 22_400, `minimum speech ${vadMinSpeechMs} ms`);
    const zeros = pcms.at(-1)!.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
    assert.equal(zeros, 0, `${zeros} samples at the segment's start had been released`);
    // Silero opened it with its pad in front of the speech: the engine fades the onset in (onset-fade.ts).
    assert.equal(fades.at(-1), ONSET_FADE_MS);
  }
});

/** Decodes when let through (a busy engine holds the first final back); a Silero stream from `vad`. */
class HeldEngine extends TypedEmitter<EngineHostEvents> implements SessionEngine {
  loadedModel: ModelInfo | null = { name: 'fake' } as unknown as ModelInfo;
  private open: () => void = () => undefined;
  private gate: Promise<void> | null = new Promise<void>((resolve) => (this.open = resolve));
  constructor(private readonly vad: SessionVad) {
    super();
  }

  vadStream(): SessionVad {
    return this.vad;
  }

  letThrough(): void {
    this.open();
    this.gate = null;
  }

  async transcribe(pcm: Float32Array, _options: unknown, how: { skipIfBusy?: boolean }): Promise<EngineTranscript | null> {
    if (how.skipIfBusy && this.gate) return null;
    if (this.gate) await this.gate;
    return {
      text: `${pcm.length} samples`, words: [], tokens: [], durationSec: 0, decoder: 'tdt', device: 'CPU', devicesRan: ['CPU'],
      timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, windows: [], threadsUsed: 1, phrasesFired: [], phrasesRejected: [],
    };
  }
}

test('a dictation with Silero and no pre-roll keeps the audio of a segment whose onset was unsure while the last final came out', async () => {
  const settings = await SettingsStore.open(scratch('vad-release-dictation'), nullLogger);
  await settings.set({ dictation: { preRollMs: 0, vadModel: 'silero', ...SETTINGS } });
  const warnings: string[] = [];
  const log: Logger = { ...nullLogger, warn: (message) => warnings.push(message), child: () => log };
  // A confirmed phrase (windows 10–39), then the onset Silero is unsure of (from window 120).
  const engine = new HeldEngine(scheduledVad((i) => (i >= 10 && i < 40 ? 0.9 : unsureOnset(i))));
  const manager = new SessionManager({ engine, bus: new EventBus(), settings, log, retainAudio: false });
  const { sessionId } = manager.start({ sampleRate: RATE }, 'a');
  const audio = new Float32Array(8 * RATE).fill(0.1);
  for (let at = 0; at < audio.length; at += 640) {
    assert.equal(manager.pushAudio(sessionId, audio.slice(at, at + 640), 'a', at), true);
    await tick();
    // The first phrase's final comes out while the second's onset has been unsure for over a second, just
    // before Silero confirms it (window 157 ends at 80 896).
    if (at === 80_000) {
      engine.letThrough();
      for (let i = 0; i < 5; i++) await tick();
    }
  }
  const summary = await manager.stop(sessionId, 'a');
  assert.deepEqual(warnings, [], 'Silero decided the whole session');
  assert.equal(summary.segments.length, 2);
  assert.match(summary.segments[1]!.text, /^\d+ samples$/, 'the second segment was decoded from its start');
});

test('a dictation with a minimum speech over a second keeps the audio back to an onset still being counted while the last final came out', async () => {
  const settings = await SettingsStore.open(scratch('vad-release-dictation-min-speech'), nullLogger);
  await settings.set({ dictation: { preRollMs: 0, vadModel: 'silero', ...SETTINGS, vadMinSpeechMs: 2000 } });
  // A phrase (windows 10–89, 2.56 s), then 6.4 s of speech from window 252 (sample 129 024), confirmed at once:
  // its segment starts the 200 ms pad before, in the store's second 4 s chunk (released whole, or not at all).
  const engine = new HeldEngine(scheduledVad((i) => ((i >= 10 && i < 90) || (i >= 252 && i < 452) ? 0.9 : 0.05)));
  const manager = new SessionManager({ engine, bus: new EventBus(), settings, log: nullLogger, retainAudio: false });
  const { sessionId } = manager.start({ sampleRate: RATE }, 'a');
  const audio = new Float32Array(16 * RATE).fill(0.1);
  for (let at = 0; at < audio.length; at += 640) {
    assert.equal(manager.pushAudio(sessionId, audio.slice(at, at + 640), 'a', at), true);
    await tick();
    // The first phrase's final comes out 1.8 s into the second's onset, before its 2 s have been counted.
    if (at === 157_440) {
      engine.letThrough();
      for (let i = 0; i < 5; i++) await tick();
    }
  }
  const summary = await manager.stop(sessionId, 'a');
  assert.equal(summary.segments.length, 2);
  assert.equal(summary.segments[1]!.startSample, 125_824, 'the second segment starts the 200 ms pad before its onset');
  assert.match(summary.segments[1]!.text, /^\d+ samples$/, 'the second segment was decoded from its start');
});
