// The history through the real services (engine process, tiny generated
// model): a live dictation session ends up as an entry whose segments are
// exactly the finals it emitted, a file transcription as an entry with the
// same text and words, both listed, searchable and readable through the IPC
// router, and still there after the services restart.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FileTranscript, HistoryChange, HistoryEntry, HistoryList, TranscriptEvent } from '../../app/ipc/contract.js';
import { createServices, type Services, type ServicesOptions } from '../../app/main/services.js';
import { encodeWav16 } from '../../app/shared/wav.js';
import { RATE, concat, quiet, speechLike } from '../support/audio/signals.js';
import { dictate, tempDir, tinyModel, writeTestSettings } from './helpers.js';

const dir = tempDir('history');
const modelPath = tinyModel(dir, 'tdt');
const options: ServicesOptions = {
  userDataDir: dir,
  mode: 'web',
  engineMode: 'process',
  modelPath,
  modelEndpoint: 'https://127.0.0.1:9',
  logToStderr: process.env.PARAKEET_TEST_LOG === '1',
};
const ctx = { clientId: 'test' };
let services: Services;

before(async () => {
  writeTestSettings(dir, { dictation: { partialIntervalMs: 150 } });
  services = await createServices(options);
  await services.ready;
});
after(async () => {
  await services.dispose();
});

async function invoke<T>(channel: string, payload?: unknown): Promise<T> {
  const result = await services.router.handle(channel, payload, ctx);
  assert.ok(result.ok, `${channel}: ${JSON.stringify(result)}`);
  return result.value as T;
}

test('a live dictation becomes an entry whose segments are exactly the finals emitted', async () => {
  const finals: TranscriptEvent[] = [];
  const changes: HistoryChange[] = [];
  const offFinals = services.bus.on('dictation:transcript', (t) => t.kind === 'final' && finals.push(t));
  const offChanges = services.bus.on('history:changed', (c) => changes.push(c));
  const audio = concat(quiet(0.5, 1), speechLike(1.4, 31), quiet(0.9, 2), speechLike(1.1, 32), quiet(0.9, 3));
  const summary = await dictate(services, audio, 10);
  await services.history.settled();
  offFinals();
  offChanges();

  assert.ok(summary.segments.some((s) => s.text), 'the random model says something');
  assert.deepEqual(changes.map((c) => c.change), ['added', 'updated'], 'added at the first words, updated when closed');
  const list = await invoke<HistoryList>('history:list', {});
  assert.equal(list.total, 1);
  const summaryEntry = list.entries[0]!;
  assert.deepEqual([summaryEntry.kind, summaryEntry.live, summaryEntry.recovered], ['dictation', false, false]);
  assert.equal(summaryEntry.durationSec, summary.audioSeconds);
  assert.equal(summaryEntry.modelName, services.engine.loadedModel?.name);

  const entry = await invoke<HistoryEntry>('history:get', { id: summaryEntry.id });
  const emitted = finals.filter((f) => f.sessionId === summary.sessionId);
  assert.deepEqual(
    entry.segments,
    emitted.map(({ segmentId, start, end, text, devicesRan, words }) => ({ segmentId, start, end, text, devicesRan, words })),
  );
  assert.equal(entry.text, summary.text);
  assert.equal(entry.segmentCount, emitted.length);
});

test('a file transcription becomes an entry with the same text and words; search finds it; it survives a restart', async () => {
  const wav = join(dir, 'meeting.wav');
  writeFileSync(wav, encodeWav16(concat(quiet(0.3, 4), speechLike(2.5, 41), quiet(0.5, 5)), RATE));
  const transcript = await invoke<FileTranscript>('files:transcribe', { path: wav });
  assert.ok(transcript.text, 'the random model says something');

  // The entry exists by the time the reply comes.
  const files = await invoke<HistoryList>('history:list', { kind: 'file' });
  assert.equal(files.total, 1);
  const entry = await invoke<HistoryEntry>('history:get', { id: files.entries[0]!.id });
  assert.deepEqual(
    [entry.title, entry.sourcePath, entry.text, entry.words, entry.durationSec, entry.devices],
    ['meeting.wav', wav, transcript.text, transcript.words, transcript.durationSec, transcript.devicesRan],
  );

  const word = transcript.text.split(/\s+/).find((w) => w.length > 2) ?? transcript.text;
  const found = await invoke<HistoryList>('history:list', { query: word.toUpperCase(), kind: 'file' });
  assert.deepEqual(found.entries.map((e) => e.id), [entry.id]);

  await services.dispose();
  services = await createServices(options);
  await services.ready;
  const again = await invoke<HistoryList>('history:list', {});
  assert.equal(again.total, 2);
  assert.deepEqual((await invoke<HistoryEntry>('history:get', { id: entry.id })).text, transcript.text);

  await invoke('history:delete', { id: entry.id });
  assert.equal((await invoke<HistoryList>('history:list', {})).total, 1);
});
