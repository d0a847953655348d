// Corrected transcripts: the word alignment (unchanged words keep their
// times, a replaced word takes the replaced one's span, inserted and deleted
// words), and the history side — an edited segment is on disk after a
// restart, marked edited, found by search (the old word no longer), in the
// preview and in every export; live entries and files refuse; a new
// transcription (replaceMeetingSegments) replaces the edits.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { HistorySegment, HistorySettings, TranscriptEvent, Word } from '../../../app/ipc/contract.js';
import { HistoryService } from '../../../app/main/history/history-service.js';
import { alignEditedWords, editSegment } from '../../../app/main/history/segment-edit.js';
import { nullLogger } from '../../../app/main/log.js';
import { meetingExport } from '../../../app/shared/meeting-export.js';
import { exportTranscript } from '../../../app/shared/subtitles.js';
import { scratch } from './tmp.js';

const SETTINGS: HistorySettings = { enabled: true, keepDays: 0, maxEntries: 1000 };
const w = (text: string, start: number, end: number, confidence = 0.8): Word => ({ text, start, end, confidence });
const WORDS = [w('seven', 1, 1.4), w('three', 1.5, 1.9), w('nine', 2, 2.4), w('four', 2.5, 2.9)];
const BOUNDS = { start: 0.8, end: 3.2 };
const times = (words: Word[]): Array<[string, number, number]> => words.map((x) => [x.text, Number(x.start.toFixed(3)), Number(x.end.toFixed(3))]);

test('alignment: unchanged words keep times and confidence; a replaced word takes its span; inserted words share the gap; deletions drop', () => {
  assert.deepEqual(alignEditedWords(WORDS, 'seven three nine four', BOUNDS), WORDS);
  const replaced = alignEditedWords(WORDS, 'seven tree nine four', BOUNDS);
  assert.deepEqual(times(replaced), [['seven', 1, 1.4], ['tree', 1.5, 1.9], ['nine', 2, 2.4], ['four', 2.5, 2.9]]);
  assert.equal(replaced[0]!.confidence, 0.8);
  assert.equal(replaced[1]!.confidence, 1, 'a typed word: the user is sure of it');
  // Two words for one: they share its span.
  assert.deepEqual(times(alignEditedWords(WORDS, 'seven thirty tree nine four', BOUNDS)).slice(1, 3), [['thirty', 1.5, 1.7], ['tree', 1.7, 1.9]]);
  // Inserted between kept words: in the gap between them.
  assert.deepEqual(times(alignEditedWords(WORDS, 'seven and three nine four', BOUNDS)), [['seven', 1, 1.4], ['and', 1.4, 1.5], ['three', 1.5, 1.9], ['nine', 2, 2.4], ['four', 2.5, 2.9]]);
  // At the start and the end: from the segment's bounds.
  assert.deepEqual(times(alignEditedWords(WORDS, 'oh seven three nine four', BOUNDS)).slice(0, 2), [['oh', 0.8, 1], ['seven', 1, 1.4]]);
  assert.deepEqual(times(alignEditedWords(WORDS, 'seven three nine four five', BOUNDS)).slice(-1), [['five', 2.9, 3.2]]);
  assert.deepEqual(times(alignEditedWords(WORDS, 'seven four', BOUNDS)), [['seven', 1, 1.4], ['four', 2.5, 2.9]]);
  // A segment without words: the new words share the segment.
  assert.deepEqual(times(alignEditedWords([], 'one two', { start: 1, end: 2 })), [['one', 1, 1.5], ['two', 1.5, 2]]);
  assert.deepEqual(alignEditedWords(WORDS, '   ', BOUNDS), []);
});

test('editSegment: trimmed, one line, marked edited; the same text changes nothing', () => {
  const segment: HistorySegment = { segmentId: 3, start: 0.8, end: 3.2, text: 'seven three nine four', devicesRan: ['CPU'], words: WORDS };
  assert.equal(editSegment(segment, '  seven three nine four '), segment);
  const edited = editSegment(segment, 'seven\nthree nine for');
  assert.equal(edited.text, 'seven three nine for');
  assert.equal(edited.edited, true);
  assert.deepEqual(times(edited.words).slice(-1), [['for', 2.5, 2.9]]);
});

function final(sessionId: string, segmentId: number, text: string, start: number): TranscriptEvent {
  return {
    sessionId, segmentId, kind: 'final', text, start, end: start + 1.5, devicesRan: ['CPU'],
    words: text.split(' ').map((x, i) => w(x, start + i * 0.4, start + i * 0.4 + 0.3, 0.9)),
  };
}

function open(dir: string): Promise<HistoryService> {
  return HistoryService.open({ dir, settings: () => SETTINGS, model: () => ({ id: null, name: 'digits' }), emit: () => undefined, notify: () => undefined, log: nullLogger });
}

test('an edited dictation segment: saved atomically, there after a restart, searched, previewed and exported as corrected; times kept', async () => {
  const dir = join(scratch('edit-dictation'), 'history');
  let history = await open(dir);
  history.sessionStarted('s1');
  history.sessionFinal(final('s1', 0, 'one two three', 0));
  history.sessionFinal(final('s1', 1, 'four five six', 2));
  history.sessionEnded('s1', 4);
  await history.settled();
  const { id } = (await history.list()).entries[0]!;

  const edited = await history.editSegment(id, 1, 'four fife six seven');
  assert.equal(edited.text, 'one two three four fife six seven');
  assert.equal(edited.segments[1]!.edited, true);
  assert.equal(edited.segments[0]!.edited, undefined);
  assert.deepEqual(times(edited.segments[1]!.words).slice(0, 3), [['four', 2, 2.3], ['fife', 2.4, 2.7], ['six', 2.8, 3.1]]);
  // No temp file left behind: the rewrite was a rename.
  assert.deepEqual(readdirSync(join(dir, 'entries')).filter((n) => n.startsWith('.')), []);
  await history.dispose();

  history = await open(dir);
  const again = await history.get(id);
  assert.equal(again.text, 'one two three four fife six seven');
  assert.equal(again.segments[1]!.edited, true);
  assert.equal(again.wordCount, 7);
  assert.match((await history.list()).entries[0]!.preview, /four fife six seven$/);
  assert.equal((await history.list({ query: 'fife six' })).total, 1);
  assert.equal((await history.list({ query: 'five six' })).total, 0, 'the old words are gone from the search');
  assert.match(exportTranscript('txt', again.text, again.words, again.durationSec), /four fife six seven/);
  assert.match(exportTranscript('srt', again.text, again.words, again.durationSec), /fife/);
  assert.match(exportTranscript('vtt', again.text, again.words, again.durationSec), /fife/);

  await assert.rejects(history.editSegment(id, 9, 'x'), /no segment 9/);
  await history.recordFile({ jobId: 'f1', path: '/tmp/a.wav', text: 'hi', words: [], tokens: [], durationSec: 1, devicesRan: ['CPU'], elapsedMs: 1 });
  const file = (await history.list({ kind: 'file' })).entries[0]!;
  await assert.rejects(history.editSegment(file.id, 0, 'x'), (e: Error & { code?: string }) => e.code === 'NOT_SUPPORTED');
  // A session still being recorded: refused until it stops.
  history.sessionStarted('s2');
  history.sessionFinal(final('s2', 0, 'eight', 0));
  await history.settled();
  const live = (await history.list({ kind: 'dictation' })).entries.find((e) => e.live)!;
  await assert.rejects(history.editSegment(live.id, 0, 'ate'), (e: Error & { code?: string }) => e.code === 'BUSY');
  await history.dispose();
});

test('an edited meeting line: in every meeting export with its speaker; concurrent edits both land; a delete right after a correction wins', async () => {
  const dir = join(scratch('edit-meeting'), 'history');
  const id = '20250304-100000-abcdef';
  mkdirSync(join(dir, 'entries'), { recursive: true });
  const lines = [
    { type: 'entry', version: 1, id, kind: 'meeting', title: 'Meeting', createdAt: '2025-03-04T10:00:00.000Z', modelId: null, modelName: null, sourcePath: null },
    { type: 'track', track: 'you', speaker: 'You', file: 'you.wav', offsetSec: 0 },
    { type: 'segment', sessionId: 'm1', segmentId: 0, start: 1, end: 3, text: 'one two', devicesRan: ['CPU'], speaker: 'You', words: [w('one', 1.2, 1.5), w('two', 2, 2.4)] },
    { type: 'segment', sessionId: 'm1', segmentId: 1, start: 4, end: 6, text: 'nine', devicesRan: ['CPU'], speaker: 'Others', words: [w('nine', 4.5, 5)] },
    { type: 'marker', at: 3.5, text: 'decision' },
    { type: 'closed', at: '2025-03-04T10:00:07.000Z', durationSec: 7, recovered: false },
  ];
  writeFileSync(join(dir, 'entries', `${id}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const history = await open(dir);
  const [a, b] = await Promise.all([history.editSegment(id, 0, 'one to'), history.editSegment(id, 1, 'nine ten')]);
  assert.equal(a.segments[0]!.text, 'one to');
  assert.deepEqual(b.segments.map((s) => s.text), ['one to', 'nine ten'], 'the second edit read the first one\'s file');
  const e = await history.get(id);
  assert.deepEqual(e.markers, [{ at: 3.5, text: 'decision' }]);
  assert.deepEqual(e.audio?.map((t) => t.file), ['you.wav']);
  const t = { title: e.title, createdAt: e.createdAt, durationSec: e.durationSec, recovered: e.recovered, segments: e.segments, markers: e.markers ?? [] };
  assert.match(meetingExport('txt', t), /\[00:01\] You: one to\n\[00:03\] -- decision\n\[00:04\] Others: nine ten/);
  assert.match(meetingExport('srt', t), /You: one to/);
  assert.match(meetingExport('vtt', t), /<v Others>nine ten/);
  assert.match(meetingExport('md', t), /\*\*You\*\* \(00:01\): one to/);
  const json = JSON.parse(meetingExport('json', t)) as { segments: Array<{ text: string; words: Word[] }> };
  assert.deepEqual(json.segments[0]!.words.map((x) => [x.text, x.start]), [['one', 1.2], ['to', 2]]);

  // Deleted right after a correction was asked: the entry stays deleted (its file is not written back into place).
  const racing = history.editSegment(id, 0, 'one too');
  await history.delete(id);
  await assert.rejects(racing, (x: Error & { code?: string }) => x.code === 'NOT_FOUND');
  assert.deepEqual(readdirSync(join(dir, 'entries')), []);
  await history.dispose();
  const reopened = await open(dir);
  assert.equal((await reopened.list()).total, 0, 'not back after a restart either');
  await reopened.dispose();
});

test('a new transcription of a corrected meeting replaces the corrections', async () => {
  const dir = join(scratch('edit-retranscribe'), 'history');
  const id = '20250304-100000-abcdef';
  mkdirSync(join(dir, 'entries'), { recursive: true });
  const lines = [
    { type: 'entry', version: 1, id, kind: 'meeting', title: 'Meeting', createdAt: '2025-03-04T10:00:00.000Z', modelId: null, modelName: null, sourcePath: null },
    { type: 'segment', sessionId: 'm1', segmentId: 0, start: 1, end: 3, text: 'one two', devicesRan: ['CPU'], speaker: 'You', words: [] },
    { type: 'closed', at: '2025-03-04T10:00:07.000Z', durationSec: 7, recovered: false },
  ];
  writeFileSync(join(dir, 'entries', `${id}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const history = await open(dir);
  assert.equal((await history.editSegment(id, 0, 'one to')).segments[0]!.edited, true);
  const redone = await history.replaceMeetingSegments(id, [{ segmentId: 0, start: 1, end: 3, text: 'one two', devicesRan: ['CPU'], words: [], speaker: 'You' }]);
  assert.deepEqual(redone.segments.map((s) => [s.text, s.edited]), [['one two', undefined]]);
  await history.dispose();
});
