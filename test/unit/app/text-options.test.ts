// settings.text end to end through the main-process services that use it: a
// session's finals (bus event, observer = history, summary) carry the
// transformed text with coherent word times and the engine's own text as
// spokenText; the inserter joins segments as the text says (no space before a
// mark or around a line break; trailing-space mode); the settings store
// refuses a bad replacement list with a reason naming the entry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InsertSettings, TranscriptEvent } from '../../../app/ipc/contract.js';
import type { EngineHostEvents } from '../../../app/main/engine/engine-host.js';
import type { EngineTranscript } from '../../../app/engine-process/protocol.js';
import { EventBus } from '../../../app/main/events.js';
import type { Command } from '../../../app/main/insert/commands.js';
import { DictationInsert } from '../../../app/main/insert/dictation-insert.js';
import { TextInserter } from '../../../app/main/insert/text-inserter.js';
import { nullLogger } from '../../../app/main/log.js';
import { TypedEmitter } from '../../../app/main/util/typed-emitter.js';
import { SessionManager, type SessionEngine } from '../../../app/main/sessions/session-manager.js';
import { SettingsStore } from '../../../app/main/settings.js';
import type { ModelInfo } from '../../../native/index.js';
import { RATE } from '../../support/audio/signals.js';
import { speakSentence } from './speak-sentence.js';
import { scratch } from './tmp.js';

const SPOKEN = 'hello comma parakeet desktop is here period';

/** Every decode "hears" SPOKEN, one word per 0.3 s of the decoded audio. */
class SpeakingEngine extends TypedEmitter<EngineHostEvents> implements SessionEngine {
  loadedModel: ModelInfo | null = { name: 'fake' } as unknown as ModelInfo;
  async transcribe(): Promise<EngineTranscript> {
    const words = SPOKEN.split(' ').map((text, i) => ({ text, start: i * 0.3, end: i * 0.3 + 0.25, confidence: 0.9 }));
    return {
      text: SPOKEN, words, tokens: [], durationSec: 0, decoder: 'tdt', device: 'CPU', devicesRan: ['CPU'],
      timings: { melMs: 0, encoderMs: 0, decoderMs: 0, totalMs: 0 }, windows: [], threadsUsed: 1, phrasesFired: [], phrasesRejected: [],
    };
  }
}

test('a session\'s finals, its summary and what the history is told carry the transformed text; times stay the words\' own', async () => {
  const settings = await SettingsStore.open(scratch('text-options'), nullLogger);
  await settings.set({ text: { spokenPunctuation: true, replacements: [{ from: 'parakeet desktop', to: 'Parakeet Desktop' }] } });
  const bus = new EventBus();
  const finals: TranscriptEvent[] = [];
  const observed: TranscriptEvent[] = [];
  bus.on('dictation:transcript', (e) => e.kind === 'final' && finals.push(e));
  const manager = new SessionManager({
    engine: new SpeakingEngine(), bus, settings, log: nullLogger,
    observer: { sessionStarted: () => undefined, sessionFinal: (e) => observed.push(e), sessionEnded: () => undefined },
  });
  const { sessionId } = manager.start({ sampleRate: RATE }, 'a');
  await speakSentence(manager, sessionId, 'a');
  const summary = await manager.stop(sessionId, 'a');
  assert.ok(finals.length >= 1);
  const f = finals[0]!;
  assert.equal(f.text, 'hello, Parakeet Desktop is here.');
  assert.equal(f.spokenText, SPOKEN);
  assert.deepEqual(f.words.map((w) => w.text), ['hello,', 'Parakeet', 'Desktop', 'is', 'here.']);
  // Session-relative: the segment's start plus the engine's word times, the command words' spans dropped.
  const offset = f.start;
  assert.deepEqual(f.words.map((w) => +(w.start - offset).toFixed(6)), [0, 0.6, 0.9, 1.2, 1.5]);
  assert.deepEqual(observed.map((e) => e.text), finals.map((e) => e.text));
  assert.equal(summary.text, finals.map((e) => e.text).join(' '));
  await manager.dispose();
});

function insertSetup(trailingSpace: boolean) {
  const typed: string[] = [];
  const run = async (c: Command): Promise<string> => (typed.push(c.args.at(-1)!), '');
  const inserter = new TextInserter({
    platform: 'wayland', run, sleep: async () => undefined, clipboard: { read: async () => null, write: async () => undefined },
  });
  const bus = new EventBus();
  const settings: InsertSettings = { mode: 'type', restoreClipboard: false, restoreDelayMs: 300 };
  const insert = new DictationInsert({ bus, inserter, settings: () => settings, trailingSpace: () => trailingSpace, log: nullLogger });
  const final = (segmentId: number, text: string): void =>
    bus.emit('dictation:transcript', { sessionId: 's1', segmentId, kind: 'final', text, words: [], start: 0, end: 1, devicesRan: [] });
  return { typed, insert, final };
}

test('segments are joined as the text says: no space before a leading mark or around a dictated line break', async () => {
  const { typed, insert, final } = insertSetup(false);
  final(0, 'Dear Sam');
  final(1, ', thanks');
  final(2, 'for this\n');
  final(3, 'Best');
  await insert.idle();
  assert.deepEqual(typed, ['Dear Sam', ', thanks', ' for this\n', 'Best']);
  insert.dispose();
});

test('trailing-space mode: every piece ends with a space (none after a line break), none is put before', async () => {
  const { typed, insert, final } = insertSetup(true);
  final(0, 'One.');
  final(1, 'Two\n');
  final(2, 'Three.');
  await insert.idle();
  assert.deepEqual(typed, ['One. ', 'Two\n', 'Three. ']);
  insert.dispose();
});

test('the settings store refuses a bad replacement list, naming the entry, and keeps the old one', async () => {
  const settings = await SettingsStore.open(scratch('text-options-bad'), nullLogger);
  await settings.set({ text: { replacements: [{ from: 'um', to: '' }] } });
  await assert.rejects(settings.set({ text: { replacements: [{ from: 'a', to: 'b' }, { from: 'A', to: 'c' }] } }), /text\.replacements\[1\].*Replacement 2 repeats replacement 1/);
  await assert.rejects(settings.set({ text: { replacements: [{ from: 'a', to: 'b', extra: 1 } as never] } }), /extra: is not a known field/);
  assert.deepEqual(settings.get().text.replacements, [{ from: 'um', to: '' }]);
  assert.equal(settings.get().text.spokenPunctuation, false, 'off by default');
});
