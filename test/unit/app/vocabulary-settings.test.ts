// settings.text.vocabulary through the main process: the settings store keeps a
// valid list and refuses a bad weight naming the entry; a dictation session and a
// meeting track send the list (with the never-boosted spoken commands) with every
// decode, and an empty list sends no vocabulary at all (decoding as without).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import type { TranscriptEvent } from '../../../app/ipc/contract.js';
import type { EngineStreamChunk, EngineStreamHandle, EngineStreamOptions, EngineTranscribeOptions, EngineTranscript } from '../../../app/engine-process/protocol.js';
import type { StreamDecoder } from '../../../app/main/sessions/segment-stream.js';
import { EventBus } from '../../../app/main/events.js';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingTrack } from '../../../app/main/meeting/meeting-track.js';
import { WavJournalWriter } from '../../../app/main/meeting/wav-journal.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import { SessionManager, type SessionEngine } from '../../../app/main/sessions/session-manager.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { NEVER_BOOSTED } from '../../../app/shared/vocabulary.js';
import { segmentNonSpeech, SPEECH_MARGIN_SEC } from '../../../app/main/sessions/non-speech.js';
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
    return { handle: this.begun.length, info: { phrasesRejected: [] } as unknown as StreamInfo, chunkAudioMs: 560 };
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
