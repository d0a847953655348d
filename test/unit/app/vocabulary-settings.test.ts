// settings.text.vocabulary through the main process: the settings store keeps a
// valid list and refuses a bad weight naming the entry; a dictation session and a
// meeting track send the list (with the never-boosted spoken commands) with every
// decode, and an empty list sends no vocabulary at all (decoding as without).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import type { EventMap, EventName, MeetingFinal, TranscriptEvent } from '../../../app/ipc/contract.js';
import type { EngineStreamChunk, EngineStreamHandle, EngineStreamOptions, EngineTranscribeOptions, EngineTranscript } from '../../../app/engine-process/protocol.js';
import type { StreamDecoder } from '../../../app/main/sessions/segment-stream.js';
import { EventBus } from '../../../app/main/events.js';
import { nullLogger } from '../../../app/main/log.js';
import { DEFAULT_SETTINGS } from '../../../app/ipc/settings.js';
import { FORMAT_VERSION } from '../../../app/main/history/records.js';
import { MeetingService } from '../../../app/main/meeting/meeting-service.js';
import { MeetingTrack, type TrackFinal } from '../../../app/main/meeting/meeting-track.js';
import { WavJournalWriter } from '../../../app/main/meeting/wav-journal.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import { SessionManager, type SessionEngine } from '../../../app/main/sessions/session-manager.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { NEVER_BOOSTED } from '../../../app/shared/vocabulary.js';
import { segmentNonSpeech, SPEECH_MARGIN_SEC } from '../../../app/shared/non-speech.js';
import type { ModelInfo, StreamInfo } from '../../../native/index.js';
import { RATE, concat, quiet, speechLike } from '../../support/audio/signals.js';
import { speakSentence } from './speak-sentence.js';
import { scratch } from './tmp.js';

/** Records the options of every decode. */
class RecordingEngine extends TypedEmitter<EngineHostEvents> implements SessionEngine {
  loadedModel: ModelInfo | null = { name: 'fake' } as unknown as ModelInfo;
  readonly options: EngineTranscribeOptions[] = [];
  async transcribe(_pcm: Float32Array, options: EngineTranscribeOptions): Promise<EngineTranscript> {
    this.options.push(options);
    return {
      text: 'four two seven', words: [], tokens: [], durationSec: 0, decoder: 'ctc', device: 'CPU', devicesRan: ['CPU'],
      timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, windows: [], threadsUsed: 1, phrasesFired: ['four two seven'], phrasesRejected: [],
    };
  }
}

async function dictate(settings: SettingsStore): Promise<EngineTranscribeOptions[]> {
  const engine = new RecordingEngine();
  const manager = new SessionManager({ engine, bus: new EventBus(), settings, log: nullLogger });
  const { sessionId } = manager.start({ sampleRate: RATE }, 'a');
  await speakSentence(manager, sessionId, 'a');
  await manager.stop(sessionId, 'a');
  await manager.dispose();
  return engine.options;
}

test('dictation decodes with the saved vocabulary and the never-boosted commands; an empty list sends none', async () => {
  const settings = await SettingsStore.open(scratch('vocabulary-settings'), nullLogger);
  const without = await dictate(settings);
  assert.ok(without.length >= 1);
  for (const o of without) assert.equal(o.vocabulary, undefined);

  const vocabulary = [{ phrase: 'four two seven', weight: 1 }, { phrase: 'Parakeet Desktop', weight: 2 }];
  await settings.set({ text: { vocabulary } });
  const withList = await dictate(settings);
  assert.ok(withList.length >= 1);
  for (const o of withList) {
    assert.deepEqual(o.vocabulary, vocabulary);
    assert.deepEqual(o.neverBoost, [...NEVER_BOOSTED]);
  }
  // VAD gating: the pre-roll before the onset is non-speech to the vocabulary (seconds from the decoded
  // audio's start); the 200 ms closing tail is within the margin the decoder's lag needs.
  for (const o of without) assert.equal(o.nonSpeech, undefined);
  assert.ok(withList.every((o) => o.nonSpeech?.length === 1 && o.nonSpeech[0].start === 0 && o.nonSpeech[0].end > 0), 'every decode gates its pre-roll');
});

test('non-speech of a segment: the pre-roll and the closing pause, less a margin on the speech side', () => {
  // 0.5 s pre-roll, speech 0.5–2.0 s, 0.8 s closing pause, at 16 kHz.
  assert.deepEqual(segmentNonSpeech(16000, 24000, null, 60000, 16000), [{ start: 0, end: 0.5 - SPEECH_MARGIN_SEC }]);
  const closed = segmentNonSpeech(16000, 24000, 48000, 60800, 16000);
  assert.equal(closed.length, 2);
  assert.ok(Math.abs(closed[1].start - (2.0 + SPEECH_MARGIN_SEC)) < 1e-9 && closed[1].end === 2.8);
  // No pre-roll to speak of, a pause shorter than the margin: nothing gated.
  assert.deepEqual(segmentNonSpeech(0, 1600, 30000, 31000, 16000), []);
});

/** A streaming model's engine streams: records what each stream was opened with; the tail commits a phrase. */
class RecordingStreams implements StreamDecoder {
  readonly begun: EngineStreamOptions[] = [];
  async streamBegin(options: EngineStreamOptions): Promise<EngineStreamHandle> {
    this.begun.push(options);
    return { handle: this.begun.length, info: { phrasesRejected: [] } as unknown as StreamInfo, chunkAudioMs: 160 };
  }
  async streamFeed(): Promise<EngineStreamChunk[]> {
    return [];
  }
  async streamEnd(): Promise<EngineStreamChunk[]> {
    return [{
      firstFrame: 0, frames: 4, tokenIds: [1], tokenFrames: [0], events: [], text: 'four two seven', tokens: [],
      words: [{ text: 'four', start: 0, end: 0.2, confidence: 1 }], continuesWord: false, decoderReset: false, phrasesFired: ['four two seven'],
      encoderMs: 0, decoderMs: 0, encoderCpuMs: 0, decoderCpuMs: 0,
    }];
  }
  async streamClose(): Promise<void> {}
}

test('dictation on a streaming model opens its streams with the vocabulary; the final names the phrases the stream fired', async () => {
  const settings = await SettingsStore.open(scratch('vocabulary-stream'), nullLogger);
  const vocabulary = [{ phrase: 'four two seven', weight: 1 }];
  await settings.set({ text: { vocabulary } });
  const engine = new RecordingEngine();
  engine.loadedModel = { name: 'eou', streaming: true, attContextPresets: [[70, 1]], hasPrompt: false, languages: [] } as unknown as ModelInfo;
  const streams = new RecordingStreams();
  const finals: TranscriptEvent[] = [];
  const manager = new SessionManager({
    engine, bus: new EventBus(), settings, log: nullLogger, streamDecoder: streams,
    observer: { sessionStarted: () => undefined, sessionFinal: (e) => finals.push(e), sessionEnded: () => undefined },
  });
  const { sessionId } = manager.start({ sampleRate: RATE }, 'a');
  await speakSentence(manager, sessionId, 'a');
  await manager.stop(sessionId, 'a');
  await manager.dispose();
  assert.ok(streams.begun.length >= 1, 'the segment was streamed');
  for (const o of streams.begun) {
    assert.deepEqual(o.vocabulary, vocabulary);
    assert.deepEqual(o.neverBoost, [...NEVER_BOOSTED]);
    assert.ok(o.nonSpeech?.length === 1 && o.nonSpeech[0].start === 0 && o.nonSpeech[0].end > 0, 'the pre-roll is non-speech to the vocabulary');
  }
  const spoken = finals.filter((f) => f.text !== '');
  assert.ok(spoken.length >= 1);
  for (const f of spoken) assert.deepEqual(f.phrasesFired, ['four two seven']);
});

test('the settings store refuses a vocabulary entry with a bad weight, naming it', async () => {
  const settings = await SettingsStore.open(scratch('vocabulary-refused'), nullLogger);
  await assert.rejects(settings.set({ text: { vocabulary: [{ phrase: 'ok', weight: 1 }, { phrase: 'bad', weight: 0 }] } }), /text\.vocabulary\[1\]\.weight/);
  assert.deepEqual(settings.get().text.vocabulary, []);
});

test('a meeting track decodes its segments with the vocabulary', async () => {
  const seen: EngineTranscribeOptions[] = [];
  const engine = {
    transcribe: async (_pcm: Float32Array, options: EngineTranscribeOptions): Promise<EngineTranscript> => {
      seen.push(options);
      return { text: 'four two seven', words: [], devicesRan: ['CPU'], phrasesFired: [] } as unknown as EngineTranscript;
    },
  };
  const vocabulary = [{ phrase: 'four two seven', weight: 1.5 }];
  const wav = await WavJournalWriter.create(join(scratch('vocabulary-meeting'), 'you.wav'), { sampleRate: RATE, autoSync: false });
  const track = new MeetingTrack({
    track: 'you', inputRate: RATE, wav, engine, vocabulary, log: nullLogger, onFinal: () => undefined, onProblem: () => undefined,
    segmenter: { pauseMs: 600, maxSegmentSec: 20, preRollMs: 0, thresholdDb: 10 },
  });
  const audio = concat(quiet(1, 1), speechLike(2, 2), quiet(1.5, 3));
  for (let at = 0; at < audio.length; at += 640) track.push(audio.slice(at, at + 640), at);
  await track.finish();
  assert.ok(seen.length >= 1);
  for (const o of seen) assert.deepEqual(o.vocabulary, vocabulary);
});

// A tail of 0.5 s kept after the speech: more than the margin, so the closing pause is non-speech too.
const MEETING_SEGMENTER = { pauseMs: 600, maxSegmentSec: 20, preRollMs: 400, thresholdDb: 10, tailMs: 500 };
const MEETING_VOCABULARY = [{ phrase: 'four two seven', weight: 1.5 }];
/** Two phrases with pauses, as a track hears them (1 s of quiet first: the pre-roll before each onset is quiet). */
const meetingSpeech = (): Float32Array => concat(quiet(1, 1), speechLike(2, 2), quiet(1.5, 3), speechLike(1.5, 4), quiet(1.5, 5));

async function meetingTrackFinals(
  name: string, engine: ConstructorParameters<typeof MeetingTrack>[0]['engine'], stream?: StreamDecoder,
): Promise<TrackFinal[]> {
  const finals: TrackFinal[] = [];
  const wav = await WavJournalWriter.create(join(scratch(name), 'you.wav'), { sampleRate: RATE, autoSync: false });
  const track = new MeetingTrack({
    track: 'you', inputRate: RATE, wav, engine, vocabulary: MEETING_VOCABULARY, log: nullLogger, onFinal: (f) => finals.push(f), onProblem: () => undefined,
    segmenter: MEETING_SEGMENTER, ...(stream ? { stream: { decoder: stream, options: {} } } : {}),
  });
  const audio = meetingSpeech();
  for (let at = 0; at < audio.length; at += 640) track.push(audio.slice(at, at + 640), at);
  await track.finish();
  return finals;
}

/** A decode's non-speech lies inside [0, length of the decoded audio] and starts with the pre-roll, less the margin. */
function assertGuardsPreRoll(nonSpeech: EngineTranscribeOptions['nonSpeech'], lengthSec?: number): void {
  assert.ok(nonSpeech && nonSpeech.length >= 1, 'the segment\'s non-speech is sent');
  assert.equal(nonSpeech[0]!.start, 0);
  assert.ok(Math.abs(nonSpeech[0]!.end - (MEETING_SEGMENTER.preRollMs / 1000 - SPEECH_MARGIN_SEC)) < 0.05, `pre-roll range ${JSON.stringify(nonSpeech[0])}`);
  for (const r of nonSpeech) assert.ok(r.start < r.end && (lengthSec === undefined || r.end <= lengthSec + 1e-9), JSON.stringify(r));
}

test('a meeting track guards its decodes as dictation does (pre-roll and closing pause are non-speech); its finals name the phrases fired', async () => {
  const seen: { options: EngineTranscribeOptions; lengthSec: number }[] = [];
  const engine = {
    transcribe: async (pcm: Float32Array, options: EngineTranscribeOptions): Promise<EngineTranscript> => {
      seen.push({ options, lengthSec: pcm.length / RATE });
      return { text: 'four two seven', words: [], devicesRan: ['CPU'], phrasesFired: ['four two seven'] } as unknown as EngineTranscript;
    },
  };
  const finals = await meetingTrackFinals('vocabulary-meeting-guard', engine);
  assert.equal(finals.length, 2);
  assert.equal(seen.length, 2);
  for (const { options, lengthSec } of seen) {
    assertGuardsPreRoll(options.nonSpeech, lengthSec);
    // The closing pause kept after the last voiced window (the segmenter's tail) reaches the segment's end.
    const tail = options.nonSpeech!.at(-1)!;
    assert.ok(options.nonSpeech!.length === 2 && Math.abs(tail.end - lengthSec) < 1e-9, `closing pause ${JSON.stringify(options.nonSpeech)} of ${lengthSec} s`);
  }
  for (const f of finals) assert.deepEqual(f.phrasesFired, ['four two seven']);
});

test('a meeting track on a streaming model opens its streams with the vocabulary and the pre-roll as non-speech; finals name the phrases the streams fired', async () => {
  const streams = new RecordingStreams();
  const offline: EngineTranscribeOptions[] = [];
  const engine = {
    transcribe: async (_pcm: Float32Array, options: EngineTranscribeOptions): Promise<EngineTranscript> => {
      offline.push(options);
      return { text: '', words: [], devicesRan: [], phrasesFired: [] } as unknown as EngineTranscript;
    },
  };
  const finals = await meetingTrackFinals('vocabulary-meeting-stream', engine, streams);
  assert.equal(offline.length, 0, 'every segment was streamed');
  assert.equal(streams.begun.length, 2);
  for (const o of streams.begun) {
    assert.deepEqual(o.vocabulary, MEETING_VOCABULARY);
    assert.deepEqual(o.neverBoost, [...NEVER_BOOSTED]);
    assertGuardsPreRoll(o.nonSpeech);
    assert.equal(o.nonSpeech!.length, 1, 'a stream opens before its segment\'s end is known: only the pre-roll');
  }
  assert.equal(finals.length, 2);
  for (const f of finals) assert.deepEqual(f.phrasesFired, ['four two seven']);
});

test('a meeting saves the phrases each segment fired in its History segments and sends them with its finals', async () => {
  const dir = scratch('vocabulary-meeting-history');
  const events: { event: EventName; data: unknown }[] = [];
  const svc = new MeetingService({
    history: {
      newMeetingEntry: () => ({
        header: { type: 'entry', version: FORMAT_VERSION, id: '20261206-235900-000000', kind: 'meeting', title: 'Meeting', createdAt: new Date().toISOString(), modelId: null, modelName: null, sourcePath: null },
        file: join(dir, 'meeting.jsonl'),
        audioDir: join(dir, 'meeting'),
      }),
      meetingStarted: () => undefined,
      meetingEnded: () => undefined,
    },
    engine: {
      transcribe: async () => ({ text: 'four two seven', words: [], devicesRan: ['CPU'], phrasesFired: ['four two seven'] }) as unknown as EngineTranscript,
    },
    emit: <E extends EventName>(event: E, data: EventMap[E]) => void events.push({ event, data }),
    notify: () => undefined,
    log: nullLogger,
    settings: () => ({ dictation: { ...DEFAULT_SETTINGS.dictation, preRollMs: 0 }, decoder: 'auto', vocabulary: MEETING_VOCABULARY }),
    systemAudio: null,
    syncIntervalMs: 100,
  });
  const info = await svc.start('page-1', { micSampleRate: RATE, systemAudio: false });
  const audio = meetingSpeech();
  for (let at = 0; at < audio.length; at += 640) assert.ok(svc.pushMic(info.micStreamId!, audio.slice(at, at + 640), 'page-1', at));
  await svc.stop(info.meetingId);
  const finals = events.filter((e) => e.event === 'meeting:transcript').map((e) => e.data as MeetingFinal);
  assert.ok(finals.length >= 1, 'the meeting had finals');
  for (const f of finals) assert.deepEqual(f.phrasesFired, ['four two seven']);
  const records = readFileSync(join(dir, 'meeting.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; phrasesFired?: string[] });
  const segments = records.filter((r) => r.type === 'segment');
  assert.equal(segments.length, finals.length);
  for (const r of segments) assert.deepEqual(r.phrasesFired, ['four two seven']);
});
