// The history service on a scratch folder, with an injected clock: journals
// written final by final and recovered when the app "crashed" (a service
// dropped without closing), corrupt lines skipped, the index rebuilt when it
// is deleted or corrupt, retention by count and age, search, history turned
// off, delete and clear, and a write failure that becomes one notice.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { FileTranscript, HistoryChange, HistorySettings, Notice, TranscriptEvent } from '../../../app/ipc/contract.js';
import type { DictationRecorder } from '../../../app/main/history/dictation-recorder.js';
import { HistoryService } from '../../../app/main/history/history-service.js';
import { entriesToPrune } from '../../../app/main/history/retention.js';
import { PREVIEW_CHARS } from '../../../app/main/history/tally.js';
import { nullLogger } from '../../../app/main/log.js';
import { scratch } from './tmp.js';

const DAY = 86_400_000;

interface Harness {
  dir: string;
  service: HistoryService;
  settings: HistorySettings;
  clock: { now: number };
  changes: HistoryChange[];
  notices: Notice[];
  reopen(): Promise<HistoryService>;
}

async function harness(label: string, settings: Partial<HistorySettings> = {}, dir = scratch(label)): Promise<Harness> {
  const h = {
    dir,
    settings: { enabled: true, keepDays: 0, maxEntries: 1000, ...settings },
    clock: { now: Date.parse('2025-03-04T10:00:00Z') },
    changes: [] as HistoryChange[],
    notices: [] as Notice[],
  } as Harness;
  const open = () => HistoryService.open({
    dir: join(dir, 'history'),
    settings: () => h.settings,
    model: () => ({ id: 'tiny-q8_0', name: 'tiny' }),
    emit: (change) => h.changes.push(change),
    notify: (notice) => h.notices.push(notice),
    log: nullLogger,
    now: () => h.clock.now,
  });
  h.reopen = open;
  h.service = await open();
  return h;
}

function final(sessionId: string, segmentId: number, text: string): TranscriptEvent {
  const start = segmentId * 2;
  return {
    sessionId, segmentId, kind: 'final', text, start, end: start + 1.5, devicesRan: ['CPU'],
    words: text.split(' ').filter(Boolean).map((w, i) => ({ text: w, start: start + i * 0.3, end: start + i * 0.3 + 0.25, confidence: 0.9 })),
  };
}

function fileTranscript(path: string, text: string, durationSec = 12): FileTranscript {
  return {
    jobId: 'f1', path, text, tokens: [], durationSec, devicesRan: ['CPU'], elapsedMs: 300,
    words: text.split(' ').map((w, i) => ({ text: w, start: i * 0.4, end: i * 0.4 + 0.3, confidence: 0.8 })),
  };
}

/** A whole dictation: start, finals, stop. */
async function dictate(h: Harness, sessionId: string, texts: string[], audioSeconds = texts.length * 2): Promise<void> {
  h.service.sessionStarted(sessionId);
  texts.forEach((t, i) => h.service.sessionFinal(final(sessionId, i, t)));
  h.service.sessionEnded(sessionId, audioSeconds);
  await h.service.settled();
}

const entryFiles = (h: Harness) => readdirSync(join(h.dir, 'history', 'entries')).filter((n) => n.endsWith('.jsonl'));
const indexPath = (h: Harness) => join(h.dir, 'history', 'index.json');

test('a dictation is journaled final by final (JSON Lines), closed at stop, and read back with the same segments', async () => {
  const h = await harness('journal');
  h.service.sessionStarted('s1');
  h.service.sessionFinal(final('s1', 0, 'Hello there'));
  await h.service.settled();
  const [name] = entryFiles(h);
  assert.ok(name, 'the entry exists as soon as the first final is out');
  const file = join(h.dir, 'history', 'entries', name);
  let lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
  assert.deepEqual(lines.map((l) => l.type), ['entry', 'segment'], 'each final is on disk before the session ends');
  assert.deepEqual(h.changes.map((c) => c.change), ['added']);
  const live = (await h.service.list()).entries[0]!;
  assert.equal(live.live, true);
  assert.equal(live.kind, 'dictation');
  assert.match(live.title, /^Dictation \d{4}-\d\d-\d\d \d\d:\d\d$/);

  h.service.sessionFinal(final('s1', 1, 'second sentence here'));
  h.service.sessionEnded('s1', 5.5);
  await h.service.settled();
  lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string });
  assert.deepEqual(lines.map((l) => l.type), ['entry', 'segment', 'segment', 'closed']);
  const { entries, total } = await h.service.list();
  assert.equal(total, 1);
  const e = entries[0]!;
  assert.deepEqual(
    [e.live, e.recovered, e.wordCount, e.segmentCount, e.durationSec, e.devices, e.modelId, e.modelName, e.preview],
    [false, false, 5, 2, 5.5, ['CPU'], 'tiny-q8_0', 'tiny', 'Hello there second sentence here'],
  );
  assert.equal(e.characterCount, 'Hello there second sentence here'.length);
  const full = await h.service.get(e.id);
  assert.equal(full.text, 'Hello there second sentence here');
  assert.deepEqual(full.segments.map((s) => [s.segmentId, s.start, s.end, s.text]), [[0, 0, 1.5, 'Hello there'], [1, 2, 3.5, 'second sentence here']]);
  assert.equal(full.words.length, 5);
  assert.deepEqual(h.changes.map((c) => c.change), ['added', 'updated']);
});

test('a session in which nothing was said leaves no entry; empty finals before the first words are kept in order', async () => {
  const h = await harness('silence');
  await dictate(h, 's1', ['', '']);
  assert.deepEqual(entryFiles(h), []);
  assert.equal((await h.service.list()).total, 0);
  await dictate(h, 's2', ['', 'words at last', '']);
  const [entry] = (await h.service.list()).entries;
  const full = await h.service.get(entry!.id);
  assert.deepEqual(full.segments.map((s) => [s.segmentId, s.text]), [[0, ''], [1, 'words at last'], [2, '']]);
  assert.equal(full.text, 'words at last');
});

test('crash: a journal without its closed marker is recovered at the next start, everything written kept', async () => {
  const h = await harness('crash');
  h.service.sessionStarted('s1');
  for (let i = 0; i < 3; i++) h.service.sessionFinal(final('s1', i, `segment number ${i}`));
  await h.service.settled();
  // The index written while the session ran says it is live; the app "crashes" here (nothing closed).
  const index = JSON.parse(readFileSync(indexPath(h), 'utf8')) as { entries: { live: boolean }[] };
  assert.equal(index.entries[0]!.live, true);

  const after = await h.reopen();
  assert.equal(after.recoveredAtStart, 1);
  const { entries } = await after.list();
  assert.equal(entries.length, 1);
  const e = entries[0]!;
  assert.deepEqual([e.recovered, e.live, e.segmentCount, e.durationSec], [true, false, 3, 5.5]);
  const full = await after.get(e.id);
  assert.deepEqual(full.segments.map((s) => s.text), ['segment number 0', 'segment number 1', 'segment number 2']);
  const lines = readFileSync(join(h.dir, 'history', 'entries', entryFiles(h)[0]!), 'utf8').trim().split('\n');
  assert.deepEqual(JSON.parse(lines.at(-1)!), { type: 'closed', at: new Date(h.clock.now).toISOString(), durationSec: 5.5, recovered: true });
  // Recovered once: the next start finds a closed journal.
  assert.equal((await h.reopen()).recoveredAtStart, 0);
});

test('a corrupt line and a torn last line are skipped, not fatal; the recovery marker goes on a line of its own', async () => {
  const h = await harness('corrupt');
  h.service.sessionStarted('s1');
  h.service.sessionFinal(final('s1', 0, 'first'));
  await h.service.settled();
  const file = join(h.dir, 'history', 'entries', entryFiles(h)[0]!);
  appendFileSync(file, '{"type":"segment","this is not json\n');
  appendFileSync(file, `${JSON.stringify({ type: 'segment', sessionId: 's1', segmentId: 1, start: 2, end: 3, text: 42 })}\n`);
  h.service.sessionFinal(final('s1', 2, 'third'));
  await h.service.settled();
  appendFileSync(file, '{"type":"segment","sessionId":"s1","segm'); // the crash tore the line being written
  rmSync(indexPath(h));

  const after = await h.reopen();
  assert.equal(after.recoveredAtStart, 1);
  const [e] = (await after.list()).entries;
  const full = await after.get(e!.id);
  assert.deepEqual(full.segments.map((s) => s.text), ['first', 'third']);
  assert.equal(full.recovered, true);
  const last = readFileSync(file, 'utf8').trim().split('\n').at(-1)!;
  assert.equal((JSON.parse(last) as { type: string }).type, 'closed');
});

test('the index is rebuilt from the entry files when it is deleted or corrupt; files it does not know are added, missing ones dropped', async () => {
  const h = await harness('rebuild');
  await dictate(h, 's1', ['alpha beta']);
  h.clock.now += 1000;
  await h.service.recordFile(fileTranscript('/rec/meeting.wav', 'gamma delta epsilon'));
  await h.service.settled();
  const before = await h.service.list();
  assert.equal(before.total, 2);

  rmSync(indexPath(h));
  assert.deepEqual(await (await h.reopen()).list(), before);
  writeFileSync(indexPath(h), '{"version":1,"entries":[{"id":"../../etc"');
  assert.deepEqual(await (await h.reopen()).list(), before);
  writeFileSync(indexPath(h), JSON.stringify({ version: 1, entries: [{ ...before.entries[0], wordCount: -3 }] }));
  assert.deepEqual(await (await h.reopen()).list(), before, 'an index entry that does not validate makes the index untrusted');

  // An index that lost an entry (crash between journal and index), and one that lists a deleted file.
  writeFileSync(indexPath(h), JSON.stringify({ version: 1, entries: [before.entries[1], { ...before.entries[0], id: '20200101-000000-aaaaaa' }] }));
  assert.deepEqual(await (await h.reopen()).list(), before);
});

test('retention: the oldest past maxEntries go, and entries older than keepDays (the clock injected); 0 days keeps forever', async () => {
  const h = await harness('retention', { maxEntries: 3 });
  for (let i = 0; i < 5; i++) {
    await h.service.recordFile(fileTranscript(`/rec/${i}.wav`, `file ${i}`));
    h.clock.now += DAY;
  }
  await h.service.settled();
  assert.deepEqual((await h.service.list()).entries.map((e) => e.title), ['4.wav', '3.wav', '2.wav']);
  assert.equal(entryFiles(h).length, 3, 'their files are deleted too');

  // Age: now is day 5; entries are from days 2, 3, 4. Keep 2 days → only day 4 (and day 3 at exactly 2 days) stay.
  h.settings = { ...h.settings, keepDays: 2 };
  h.service.settingsChanged(h.settings, { ...h.settings, keepDays: 0 });
  await h.service.settled();
  assert.deepEqual((await h.service.list()).entries.map((e) => e.title), ['4.wav', '3.wav']);

  // Pruning at start-up, too.
  h.clock.now += 10 * DAY;
  assert.equal((await (await h.reopen()).list()).total, 0);

  const now = Date.parse('2025-01-10T00:00:00Z');
  const entry = (id: string, daysAgo: number, live = false) => ({ id, createdAt: new Date(now - daysAgo * DAY).toISOString(), live }) as never;
  assert.deepEqual(entriesToPrune([entry('a', 400), entry('b', 1)], { keepDays: 0, maxEntries: 10 }, now), [], '0 days: forever');
  assert.deepEqual(entriesToPrune([entry('a', 3, true), entry('b', 1), entry('c', 2)], { keepDays: 1, maxEntries: 1 }, now), ['c'], 'a live entry is never pruned');
});

test('search: case-insensitive over the text (not only the preview), across segments, by title, by kind; total counts every page', async () => {
  const h = await harness('search');
  const long = `${'filler '.repeat(60)}the Needle is far down`;
  await h.service.recordFile(fileTranscript('/rec/board-meeting.wav', long));
  h.clock.now += 1000;
  await dictate(h, 's1', ['we talked about the quarterly', 'numbers and the budget']);
  h.clock.now += 1000;
  await dictate(h, 's2', ['nothing relevant']);

  const titles = async (query: string, kind?: 'file' | 'dictation') => (await h.service.list({ query, kind })).entries.map((e) => e.title);
  assert.ok((await h.service.list()).entries[2]!.preview.length <= PREVIEW_CHARS + 1);
  assert.deepEqual(await titles('NEEDLE'), ['board-meeting.wav'], 'found past the preview');
  assert.deepEqual((await titles('quarterly numbers')).length, 1, 'a phrase across two segments');
  assert.deepEqual(await titles('board-MEETING'), ['board-meeting.wav'], 'the title');
  assert.deepEqual(await titles('the', 'dictation'), [(await h.service.list({ kind: 'dictation' })).entries[1]!.title]);
  assert.deepEqual(await titles('absent words'), []);
  const page = await h.service.list({ limit: 1, offset: 1 });
  assert.deepEqual([page.entries.length, page.total], [1, 3]);
});

test('history turned off records nothing (sessions and files); turning it off mid-session closes that entry', async () => {
  const h = await harness('disabled', { enabled: false });
  await dictate(h, 's1', ['not kept']);
  await h.service.recordFile(fileTranscript('/rec/a.wav', 'not kept either'));
  assert.equal((await h.service.list()).total, 0);
  assert.deepEqual(entryFiles(h), []);

  h.settings = { ...h.settings, enabled: true };
  h.service.sessionStarted('s2');
  h.service.sessionFinal(final('s2', 0, 'kept'));
  const off = { ...h.settings, enabled: false };
  h.service.settingsChanged(off, h.settings);
  h.settings = off;
  h.service.sessionFinal(final('s2', 1, 'after turning it off'));
  await h.service.settled();
  const [e] = (await h.service.list()).entries;
  assert.deepEqual([e!.live, (await h.service.get(e!.id)).text], [false, 'kept']);
});

test('delete removes the entry and its file (a live one stops being recorded); clear removes everything', async () => {
  const h = await harness('delete');
  await dictate(h, 's1', ['one']);
  h.clock.now += 1000;
  await h.service.recordFile(fileTranscript('/rec/b.wav', 'two'));
  h.clock.now += 1000;
  h.service.sessionStarted('s3');
  h.service.sessionFinal(final('s3', 0, 'three'));
  await h.service.settled();
  const ids = (await h.service.list()).entries.map((e) => e.id);
  assert.equal(ids.length, 3);

  await h.service.delete(ids[0]!); // the live one (newest)
  h.service.sessionFinal(final('s3', 1, 'still talking'));
  h.service.sessionEnded('s3', 4);
  await h.service.settled();
  assert.equal(existsSync(join(h.dir, 'history', 'entries', `${ids[0]}.jsonl`)), false);
  assert.equal(entryFiles(h).length, 2, 'not re-created by the finals after the delete');
  await assert.rejects(h.service.get(ids[0]!), { code: 'NOT_FOUND' });
  await assert.rejects(h.service.delete(ids[0]!), { code: 'NOT_FOUND' });

  await h.service.clear();
  assert.equal((await h.service.list()).total, 0);
  assert.deepEqual(readdirSync(join(h.dir, 'history', 'entries')), []);
  assert.equal((await (await h.reopen()).list()).total, 0);
  assert.deepEqual(h.changes.slice(-2).map((c) => c.change), ['removed', 'cleared']);
});

test('a write failure is one notice that says what to do; the session goes on and nothing throws', async () => {
  const h = await harness('failure');
  const entries = join(h.dir, 'history', 'entries');
  rmSync(entries, { recursive: true });
  writeFileSync(entries, 'not a folder'); // every write under it fails
  h.service.sessionStarted('s1');
  h.service.sessionFinal(final('s1', 0, 'lost words'));
  h.service.sessionFinal(final('s1', 1, 'more lost words'));
  h.service.sessionEnded('s1', 3);
  await h.service.recordFile(fileTranscript('/rec/c.wav', 'lost too'));
  await h.service.settled();
  assert.deepEqual(h.notices.map((n) => n.code), ['HISTORY_WRITE_FAILED', 'HISTORY_WRITE_FAILED'], 'one per session, one per file');
  const session = h.notices.find((n) => /dictation/.test(n.message));
  assert.match(session?.message ?? '', /could not be saved to the history .*Dictation continues and its text stays on screen/);
  assert.match(session?.action ?? '', /disk space/);
  assert.equal((await h.service.list()).total, 0);
  rmSync(entries);
  mkdirSync(entries);
});

test('memory: a long session keeps no text in the recorder (backlog drained, preview bounded)', async () => {
  const h = await harness('memory');
  let recorder: DictationRecorder | null = null;
  h.service.sessionStarted('s1');
  for (let i = 0; i < 500; i++) {
    h.service.sessionFinal(final('s1', i, `sentence ${i} with a few more words in it`));
    if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await h.service.settled();
  recorder = (h.service as unknown as { recorders: Map<string, DictationRecorder> }).recorders.get('s1') ?? null;
  assert.equal(recorder?.backlogLength, 0);
  const e = (await h.service.list()).entries[0]!;
  assert.ok(e.preview.length <= PREVIEW_CHARS + 1);
  assert.equal(e.segmentCount, 500);
  h.service.sessionEnded('s1', 1000);
  await h.service.settled();
  assert.equal((await h.service.get(e.id)).segments.length, 500);
});

test('the vocabulary phrases that fired are kept per segment and per file and shown once on the entry', async () => {
  const h = await harness('phrases');
  h.service.sessionStarted('s1');
  h.service.sessionFinal({ ...final('s1', 0, 'call Parakeet Desktop now'), phrasesFired: ['Parakeet Desktop'] });
  h.service.sessionFinal(final('s1', 1, 'nothing here'));
  h.service.sessionFinal({ ...final('s1', 2, 'Kubernetes and Parakeet Desktop'), phrasesFired: ['Kubernetes', 'Parakeet Desktop'] });
  h.service.sessionEnded('s1', 6);
  await h.service.settled();
  const dictation = (await h.service.list()).entries[0]!;
  const full = await h.service.get(dictation.id);
  assert.deepEqual(full.phrasesFired, ['Parakeet Desktop', 'Kubernetes'], 'each phrase once, in order of first occurrence');
  assert.deepEqual(full.segments.map((s) => s.phrasesFired), [['Parakeet Desktop'], undefined, ['Kubernetes', 'Parakeet Desktop']]);

  await h.service.recordFile({ ...fileTranscript('/rec/a.wav', 'four two seven'), phrasesFired: ['four two seven'] });
  await h.service.settled();
  const file = (await h.service.list({ kind: 'file' })).entries[0]!;
  assert.deepEqual((await h.service.get(file.id)).phrasesFired, ['four two seven']);
  // A corrupt list on disk is a skipped record, not a crash: the reader's checks hold for the new field too.
  const name = entryFiles(h).find((n) => readFileSync(join(h.dir, 'history', 'entries', n), 'utf8').includes('"kind":"file"'))!;
  const path = join(h.dir, 'history', 'entries', name);
  writeFileSync(path, readFileSync(path, 'utf8').replace('"phrasesFired":["four two seven"]', '"phrasesFired":[7]'));
  const reread = await (await h.reopen()).get(file.id);
  assert.deepEqual(reread.phrasesFired, []);
});

test('a file entry keeps how its speech was found (Silero, what it decoded) across a restart; one written before it has none', async () => {
  const h = await harness('speech-cut');
  const speechCut = { detector: 'silero', model: 'Silero VAD v6.2 (F32)', decodedSec: 7.5 } as const;
  await h.service.recordFile({ ...fileTranscript('/rec/cut.wav', 'one two three'), speechCut });
  h.clock.now += 1000;
  await h.service.recordFile(fileTranscript('/rec/older.wav', 'four five'));
  await h.service.settled();
  const reopened = await h.reopen();
  const byTitle = new Map((await reopened.list()).entries.map((e) => [e.title, e.id]));
  assert.deepEqual((await reopened.get(byTitle.get('cut.wav')!)).speechCut, speechCut);
  assert.equal('speechCut' in (await reopened.get(byTitle.get('older.wav')!)), false);
});
