// Diarized meetings in History: the "Others" track's words carry speakers; renaming one renames it in every
// segment and word at once (on disk, after a restart, in search and every export, RTTM included); renaming onto
// another speaker's name merges the two; unknown speakers, empty names and live entries are refused.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { HistorySettings, Word } from '../../../app/ipc/contract.js';
import { HistoryService } from '../../../app/main/history/history-service.js';
import { nullLogger } from '../../../app/main/log.js';
import { meetingExport } from '../../../app/shared/meeting-export.js';
import { scratch } from './tmp.js';

const SETTINGS: HistorySettings = { enabled: true, keepDays: 0, maxEntries: 1000 };
const w = (text: string, start: number, speaker?: string): Word => ({ text, start, end: start + 0.3, confidence: 0.9, ...(speaker ? { speaker } : {}) });

function open(dir: string): Promise<HistoryService> {
  return HistoryService.open({ dir, settings: () => SETTINGS, model: () => ({ id: null, name: 'digits' }), emit: () => undefined, notify: () => undefined, log: nullLogger });
}

test('rename and merge diarized speakers of a meeting: saved, searched and exported under the new names', async () => {
  const dir = join(scratch('history-speakers'), 'history');
  const id = '20250304-100000-abcdef';
  mkdirSync(join(dir, 'entries'), { recursive: true });
  const lines = [
    { type: 'entry', version: 1, id, kind: 'meeting', title: 'Weekly sync', createdAt: '2025-03-04T10:00:00.000Z', modelId: null, modelName: null, sourcePath: null },
    { type: 'segment', sessionId: 'm1', segmentId: 0, start: 1, end: 2, text: 'hello', devicesRan: ['CPU'], speaker: 'You', words: [w('hello', 1.2)] },
    { type: 'segment', sessionId: 'm1', segmentId: 1, start: 3, end: 6, text: 'nine ten eleven', devicesRan: ['CPU'], speaker: 'Others',
      words: [w('nine', 3.2, 'Speaker 1'), w('ten', 3.8, 'Speaker 1'), w('eleven', 5, 'Speaker 2')] },
    { type: 'closed', at: '2025-03-04T10:00:07.000Z', durationSec: 7, recovered: false },
  ];
  writeFileSync(join(dir, 'entries', `${id}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  let history = await open(dir);
  const before = await history.get(id);
  assert.match(meetingExport('txt', transcript(before)), /\[00:03\] Speaker 1: nine ten\n\[00:05\] Speaker 2: eleven/);

  await history.renameSpeaker(id, 'Speaker 1', 'Ana');
  history = await open(dir); // from disk
  const renamed = await history.get(id);
  assert.deepEqual(renamed.segments[1]!.words.map((x) => x.speaker), ['Ana', 'Ana', 'Speaker 2']);
  assert.match(meetingExport('srt', transcript(renamed)), /Ana: nine ten/);
  assert.match(meetingExport('vtt', transcript(renamed)), /<v Ana>nine ten/);
  assert.match(meetingExport('rttm', transcript(renamed)), /SPEAKER Weekly_sync 1 3\.200 0\.900 <NA> <NA> Ana <NA> <NA>/);
  const json = JSON.parse(meetingExport('json', transcript(renamed))) as { segments: { speaker: string; words: Word[] }[] };
  assert.deepEqual(json.segments.map((s) => s.speaker), ['You', 'Ana', 'Speaker 2']);
  assert.equal(json.segments[1]!.words[0]!.speaker, 'Ana', 'JSON has per-word speakers');

  assert.deepEqual((await history.list({ query: 'ana' })).entries.map((e) => e.id), [id], 'search finds the speaker by name');
  assert.deepEqual((await history.list({ query: 'speaker 1' })).entries, [], 'the old name is gone');

  const merged = await history.renameSpeaker(id, 'Speaker 2', 'Ana');
  assert.deepEqual(merged.segments[1]!.words.map((x) => x.speaker), ['Ana', 'Ana', 'Ana']);
  assert.match(meetingExport('txt', transcript(merged)), /\[00:03\] Ana: nine ten eleven\n$/);

  await assert.rejects(history.renameSpeaker(id, 'Nobody', 'X'), { code: 'NOT_FOUND' });
  await assert.rejects(history.renameSpeaker(id, 'Ana', '   '), { code: 'BAD_ARGUMENT' });
});

function transcript(e: Awaited<ReturnType<HistoryService['get']>>) {
  return { title: e.title, createdAt: e.createdAt, durationSec: e.durationSec, recovered: e.recovered, segments: e.segments, markers: e.markers ?? [] };
}
