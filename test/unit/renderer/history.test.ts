// The History view's state and commands: the history slice (only the newest
// list reply is shown, an opened entry that is removed closes), the commands
// against a fake window.parakeet (search request, history:changed follow-up,
// delete), and the exports of an entry.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HistoryEntry, HistoryEntrySummary } from '../../../app/ipc/contract.js';
import { historyExportContent, historyExportName } from '../../../renderer/export.js';
import * as actions from '../../../renderer/store/actions.js';
import { deleteHistoryEntry, editHistorySegment, historyChanged, loadHistory, openHistoryEntry } from '../../../renderer/store/commands.js';
import {
  HISTORY_PAGE, historyListLoaded, historyListRequested, historyOpened, historyOpening, historyQuery, historyRemoved, initialHistory,
  listRequest,
} from '../../../renderer/store/history.js';
import { appStore } from '../../../renderer/store/store.js';
import { installFakeApi } from './fake-api.js';

function summary(id: string, kind: 'dictation' | 'file' = 'dictation'): HistoryEntrySummary {
  return {
    id, kind, title: kind === 'file' ? 'meeting.wav' : 'Dictation 2025-03-04 14:05', createdAt: '2025-03-04T13:05:00.000Z',
    durationSec: 4, wordCount: 3, characterCount: 15, preview: 'hello big world', modelId: null, modelName: 'tiny',
    devices: ['CPU'], segmentCount: kind === 'file' ? 0 : 2, sourcePath: kind === 'file' ? '/rec/meeting.wav' : null, recovered: false, live: false,
  };
}

function entry(id: string, kind: 'dictation' | 'file' = 'dictation'): HistoryEntry {
  const words = [
    { text: 'hello', start: 0.5, end: 0.9, confidence: 0.9 },
    { text: 'big', start: 2.1, end: 2.3, confidence: 0.9 },
    { text: 'world', start: 2.4, end: 2.8, confidence: 0.9 },
  ];
  return {
    ...summary(id, kind),
    text: 'hello big world',
    words,
    phrasesFired: kind === 'file' ? ['big world'] : [],
    segments: kind === 'file' ? [] : [
      { segmentId: 0, start: 0.3, end: 1.0, text: 'hello', devicesRan: ['CPU'], words: words.slice(0, 1) },
      { segmentId: 1, start: 2.0, end: 3.0, text: 'big world', devicesRan: ['CPU'], words: words.slice(1) },
    ],
  };
}

describe('history reducers', () => {
  test('only the reply to the newest list request is shown', () => {
    let s = historyListRequested(initialHistory);
    const first = s.requested;
    s = historyListRequested(s);
    const second = s.requested;
    s = historyListLoaded(s, second, { entries: [summary('b')], total: 1 });
    s = historyListLoaded(s, first, { entries: [summary('a')], total: 7 });
    assert.deepEqual([s.entries.map((e) => e.id), s.total, s.loading, s.loaded], [['b'], 1, false, true]);
  });

  test('a new search starts from the first page; the request trims the text and omits "all"', () => {
    let s = { ...initialHistory, limit: HISTORY_PAGE * 3 };
    s = historyQuery(s, '  Budget ');
    assert.equal(s.limit, HISTORY_PAGE);
    assert.deepEqual(listRequest(s), { query: 'Budget', limit: HISTORY_PAGE });
    assert.deepEqual(listRequest({ ...s, query: '   ', kind: 'file' }), { kind: 'file', limit: HISTORY_PAGE });
  });

  test('an opened entry shows when its content arrives, and closes when it is removed', () => {
    let s = historyOpening(initialHistory, 'a');
    s = historyOpened(s, entry('b'));
    assert.equal(s.open, null, 'content of another entry (a late reply) is not shown');
    s = historyOpened(s, entry('a'));
    assert.equal(s.open?.id, 'a');
    assert.equal(historyRemoved(s, 'b'), s);
    assert.equal(historyRemoved(s, 'a').openId, null);
  });
});

describe('history commands', () => {
  const fake = installFakeApi();

  test('loadHistory sends the search; history:changed reads the list again once it was read', async () => {
    await historyChanged({ change: 'added', id: 'x' });
    assert.equal(fake.calls.length, 0, 'the view never opened: nothing to refresh');

    actions.historySearch('budget');
    actions.historyKindChosen('file');
    const loading = loadHistory();
    const call = fake.take('history:list');
    assert.deepEqual(call.payload, { query: 'budget', kind: 'file', limit: HISTORY_PAGE });
    call.resolve({ ok: true, value: { entries: [summary('a', 'file')], total: 1 } });
    await loading;
    assert.deepEqual(appStore.getState().history.entries.map((e) => e.id), ['a']);

    const changed = historyChanged({ change: 'added', id: 'b' });
    fake.take('history:list').resolve({ ok: true, value: { entries: [summary('b', 'file'), summary('a', 'file')], total: 2 } });
    await changed;
    assert.equal(appStore.getState().history.total, 2);
  });

  test('open, then delete: the entry closes; a change to the opened entry reads it again; "cleared" closes it', async () => {
    const opening = openHistoryEntry('a');
    fake.take('history:get').resolve({ ok: true, value: entry('a') });
    await opening;
    assert.equal(appStore.getState().history.open?.text, 'hello big world');

    const updated = historyChanged({ change: 'updated', id: 'a' });
    fake.take('history:get').resolve({ ok: true, value: { ...entry('a'), wordCount: 9 } });
    await updated;
    assert.equal(appStore.getState().history.open?.wordCount, 9);

    const deleting = deleteHistoryEntry('a');
    const del = fake.take('history:delete');
    assert.deepEqual(del.payload, { id: 'a' });
    del.resolve({ ok: true, value: null });
    await deleting;
    assert.equal(appStore.getState().history.openId, null);

    const reopening = openHistoryEntry('c');
    fake.take('history:get').resolve({ ok: true, value: entry('c') });
    await reopening;
    await historyChanged({ change: 'cleared', id: null });
    assert.equal(appStore.getState().history.openId, null);
  });

  test('a failed delete keeps the entry open and says why', async () => {
    const opening = openHistoryEntry('a');
    fake.take('history:get').resolve({ ok: true, value: entry('a') });
    await opening;
    const deleting = deleteHistoryEntry('a');
    fake.take('history:delete').resolve({ ok: false, error: { code: 'IO_ERROR', message: 'permission denied' } });
    await deleting;
    const state = appStore.getState();
    assert.equal(state.history.openId, 'a');
    assert.equal(state.notices.items.length, 1);
    assert.match(state.notices.items[0]!.message, /^Deleting the history entry: permission denied/);
  });

  test('a correction: history:editSegment with the line and text; the saved entry is shown; a refusal is a banner and keeps the text', async () => {
    const opening = openHistoryEntry('a');
    fake.take('history:get').resolve({ ok: true, value: entry('a') });
    await opening;
    const saving = editHistorySegment('a', 1, 'big wide world');
    const edit = fake.take('history:editSegment');
    assert.deepEqual(edit.payload, { id: 'a', segmentId: 1, text: 'big wide world' });
    edit.resolve({ ok: true, value: { ...entry('a'), text: 'hello big wide world' } });
    assert.equal(await saving, true);
    assert.equal(appStore.getState().history.open?.text, 'hello big wide world');

    const refused = editHistorySegment('a', 1, 'x');
    fake.take('history:editSegment').resolve({ ok: false, error: { code: 'BUSY', message: 'This entry is still being recorded' } });
    assert.equal(await refused, false);
    assert.equal(appStore.getState().history.open?.text, 'hello big wide world');
    assert.match(appStore.getState().notices.items[0]!.message, /^Saving the correction: This entry is still being recorded/);
  });
});

describe('history exports', () => {
  test('names: a file after its audio, a dictation after its title', () => {
    assert.equal(historyExportName(entry('a', 'file'), 'srt'), 'meeting.srt');
    assert.equal(historyExportName(entry('a'), 'txt'), 'dictation-2025-03-04-14-05.txt');
  });

  test('contents: text, subtitles from the words, JSON with the segments of a dictation', () => {
    const e = entry('a');
    assert.equal(historyExportContent('txt', e), 'hello big world\n');
    assert.equal(historyExportContent('srt', e), '1\n00:00:00,500 --> 00:00:00,900\nhello\n\n2\n00:00:02,100 --> 00:00:02,800\nbig world\n');
    const json = JSON.parse(historyExportContent('json', e)) as { segments: unknown[]; words?: unknown; title: string };
    assert.equal(json.segments.length, 2);
    assert.equal(json.words, undefined);
    assert.equal((json as { phrasesFired?: unknown }).phrasesFired, undefined, 'no vocabulary fired: no key');
    const file = JSON.parse(historyExportContent('json', entry('b', 'file'))) as { words: unknown[]; file: string; phrasesFired: string[] };
    assert.deepEqual([file.words.length, file.file], [3, '/rec/meeting.wav']);
    assert.deepEqual(file.phrasesFired, ['big world'], 'the phrases that fired travel with the JSON export');
  });
});
