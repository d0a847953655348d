// settings.text.vocabulary through the main process: the settings store keeps a
// valid list and refuses a bad weight naming the entry; a dictation session and a
// meeting track send the list (with the never-boosted spoken commands) with every
// decode, and an empty list sends no vocabulary at all (decoding as without).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import type { EngineTranscribeOptions, EngineTranscript } from '../../../app/engine-process/protocol.js';
import { EventBus } from '../../../app/main/events.js';
import { nullLogger } from '../../../app/main/log.js';
import { MeetingTrack } from '../../../app/main/meeting/meeting-track.js';
import { WavJournalWriter } from '../../../app/main/meeting/wav-journal.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import { SessionManager, type SessionEngine } from '../../../app/main/sessions/session-manager.js';
import { SettingsStore } from '../../../app/main/settings.js';
import { NEVER_BOOSTED } from '../../../app/shared/vocabulary.js';
import type { ModelInfo } from '../../../native/index.js';
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
