// History playback, main side: the Range header (every form a player sends,
// and the ones refused), media paths (nothing but an entry id and a source
// gets through), track files checked on disk (a link to another entry's
// audio, out of the history, or an audio folder that is a link: refused),
// the virtual WAV (a track as is; the mix on meeting time, sample-exact at
// any byte range), media requests answered 200/206/416/404/403/405, and an
// entry's audio gone with the entry.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { HistorySettings } from '../../../app/ipc/contract.js';
import { HistoryService } from '../../../app/main/history/history-service.js';
import { nullLogger } from '../../../app/main/log.js';
import { parseByteRange } from '../../../app/main/media/byte-range.js';
import { resolveTrackFile } from '../../../app/main/media/entry-audio.js';
import { historyMedia } from '../../../app/main/media/history-media.js';
import { answerMediaRequest, type MediaAnswer } from '../../../app/main/media/media-request.js';
import { mediaUrl, parseMediaPath } from '../../../app/main/media/media-url.js';
import { WavSource } from '../../../app/main/media/wav-source.js';
import { wavHeader, WAV_HEADER_BYTES } from '../../../app/main/meeting/wav-journal.js';
import { decodeWav } from '../../../app/shared/wav.js';
import { scratch } from './tmp.js';

const RATE = 16000;
const SETTINGS: HistorySettings = { enabled: true, keepDays: 0, maxEntries: 1000 };

function writeWav(file: string, samples: (i: number) => number, count: number): void {
  const data = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i += 1) data.writeInt16LE(samples(i), 2 * i);
  writeFileSync(file, Buffer.concat([wavHeader(RATE, data.length), data]));
}

async function bodyOf(answer: MediaAnswer): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of answer.body ?? []) parts.push(chunk);
  return Buffer.concat(parts);
}

test('Range: single byte ranges in every form; several ranges or another unit send the whole; impossible ones are 416', () => {
  const size = 1000;
  assert.deepEqual(parseByteRange(null, size), { kind: 'whole' });
  assert.deepEqual(parseByteRange('bytes=0-99', size), { kind: 'partial', range: { start: 0, end: 99 } });
  assert.deepEqual(parseByteRange('bytes=500-', size), { kind: 'partial', range: { start: 500, end: 999 } });
  assert.deepEqual(parseByteRange('bytes=-100', size), { kind: 'partial', range: { start: 900, end: 999 } });
  assert.deepEqual(parseByteRange('bytes=-5000', size), { kind: 'partial', range: { start: 0, end: 999 } });
  assert.deepEqual(parseByteRange('bytes=900-5000', size), { kind: 'partial', range: { start: 900, end: 999 } });
  assert.deepEqual(parseByteRange(' bytes = 10 - 20 ', size), { kind: 'partial', range: { start: 10, end: 20 } });
  assert.deepEqual(parseByteRange('bytes=0-1,5-6', size), { kind: 'whole' });
  assert.deepEqual(parseByteRange('items=0-1', size), { kind: 'whole' });
  for (const bad of ['bytes=1000-', 'bytes=5-4', 'bytes=-0', 'bytes=-', 'bytes=a-b', 'bytes=1-2-3', 'bytes=99999999999999999-']) {
    assert.deepEqual(parseByteRange(bad, size), { kind: 'unsatisfiable' }, bad);
  }
  assert.deepEqual(parseByteRange('bytes=-10', 0), { kind: 'unsatisfiable' });
});

test('media paths: an entry id and a source, nothing else; the URL of each host', () => {
  assert.deepEqual(parseMediaPath('20250304-100000-abcdef/mix.wav'), { entryId: '20250304-100000-abcdef', source: 'mix' });
  assert.deepEqual(parseMediaPath('a1/others.wav'), { entryId: 'a1', source: 'others' });
  for (const bad of ['../x/mix.wav', '..%2fx/mix.wav', '%2e%2e/mix.wav', 'a1/../b1/mix.wav', 'a1/you.wav/', 'a1/index.json', 'a1/..wav', 'a1/speech.wav',
    'A1/mix.wav', 'a1//mix.wav', '/a1/mix.wav', 'a1/mix.WAV', `${'x'.repeat(65)}/mix.wav`, 'a1/mix.wav?x', 'a1\\mix.wav']) {
    assert.equal(parseMediaPath(bad), null, bad);
  }
  assert.equal(mediaUrl({ mode: 'electron' }, { entryId: 'a1', source: 'you' }), 'parakeet-media://history/a1/you.wav');
  assert.equal(mediaUrl({ mode: 'web', key: 'k+/=' }, { entryId: 'a1', source: 'mix' }), '/media/history/a1/mix.wav?key=k%2B%2F%3D');
});

test("track files: only a regular file directly in the entry's own folder; names with '..', links to other entries or out, and a linked folder are refused", async () => {
  const root = scratch('media-paths');
  const audio = join(root, 'history', 'audio');
  const mine = join(audio, 'a1');
  const other = join(audio, 'b2');
  mkdirSync(mine, { recursive: true });
  mkdirSync(other, { recursive: true });
  writeWav(join(mine, 'you.wav'), () => 1, 10);
  writeWav(join(other, 'you.wav'), () => 2, 10);
  writeWav(join(root, 'secret.wav'), () => 3, 10);
  symlinkSync(join(other, 'you.wav'), join(mine, 'others.wav'));
  symlinkSync(join(root, 'secret.wav'), join(mine, 'out.wav'));
  symlinkSync('you.wav', join(mine, 'alias.wav'));
  mkdirSync(join(mine, 'dir.wav'));
  symlinkSync(other, join(audio, 'c3'));

  assert.equal(await resolveTrackFile(mine, 'you.wav'), join(mine, 'you.wav'));
  // A link inside the folder to a file of the folder is that file.
  assert.equal(await resolveTrackFile(mine, 'alias.wav'), join(mine, 'you.wav'));
  const refused = async (dir: string, file: string, code: string, pattern: RegExp): Promise<void> => {
    await assert.rejects(resolveTrackFile(dir, file), (e: Error & { code?: string }) => e.code === code && pattern.test(e.message), `${dir} ${file}`);
  };
  await refused(mine, '../b2/you.wav', 'BAD_ARGUMENT', /not a track file name/);
  await refused(mine, '..you.wav', 'BAD_ARGUMENT', /not a track file name/);
  await refused(mine, '/etc/passwd', 'BAD_ARGUMENT', /not a track file name/);
  await refused(mine, 'others.wav', 'BAD_ARGUMENT', /links outside/);
  await refused(mine, 'out.wav', 'BAD_ARGUMENT', /links outside/);
  await refused(mine, 'dir.wav', 'BAD_ARGUMENT', /not a regular file/);
  await refused(mine, 'missing.wav', 'NOT_FOUND', /not in this entry's audio folder/);
  await refused(join(audio, 'c3'), 'you.wav', 'BAD_ARGUMENT', /link to another place/);
  await refused(join(audio, 'nope'), 'you.wav', 'NOT_FOUND', /no audio folder/);
});

test('the virtual WAV: one track as it is; the mix places each track at its offset and sums, exact at any byte range', async () => {
  const dir = scratch('media-wav');
  const you = (i: number): number => (i % 200) - 100;
  const others = (i: number): number => 1000 + (i % 7);
  writeWav(join(dir, 'you.wav'), you, RATE); // 1 s
  writeWav(join(dir, 'others.wav'), others, RATE / 2); // 0.5 s, from 0.75 s
  const single = await WavSource.open([{ file: join(dir, 'you.wav'), offsetSec: 0 }]);
  assert.equal(single.size, WAV_HEADER_BYTES + RATE * 2);
  assert.deepEqual(await single.read(0, single.size - 1), readFileSync(join(dir, 'you.wav')));
  await single.close();

  const mix = await WavSource.open([{ file: join(dir, 'you.wav'), offsetSec: 0 }, { file: join(dir, 'others.wav'), offsetSec: 0.75 }]);
  assert.equal(mix.durationSec, 1.25);
  const whole = await mix.read(0, mix.size - 1);
  const decoded = decodeWav(whole);
  assert.equal(decoded.samples.length, 1.25 * RATE);
  const expected = (i: number): number => (i < RATE ? you(i) : 0) + (i >= 0.75 * RATE ? others(i - 0.75 * RATE) : 0);
  for (const i of [0, 11_999, 12_000, 12_001, 15_999, 16_000, 19_999]) assert.equal(whole.readInt16LE(WAV_HEADER_BYTES + 2 * i), expected(i), `sample ${i}`);
  // Any range (odd starts and ends inside a sample, across the header) is the same bytes as the whole.
  for (const [a, b] of [[0, 0], [3, 50], [43, 44], [45, 24_001], [24_001, 24_002], [mix.size - 3, mix.size - 1]] as const) {
    assert.deepEqual(await mix.read(a, b), whole.subarray(a, b + 1), `${a}-${b}`);
  }
  await mix.close();
});

/** A finished meeting written as the app writes one, in a history folder the service then opens. */
async function meetingHistory(label: string): Promise<{ dir: string; history: HistoryService; id: string; audioDir: string }> {
  const dir = join(scratch(label), 'history');
  const id = '20250304-100000-abcdef';
  const audioDir = join(dir, 'audio', id);
  mkdirSync(join(dir, 'entries'), { recursive: true });
  mkdirSync(audioDir, { recursive: true });
  writeWav(join(audioDir, 'you.wav'), (i) => i % 100, RATE * 2);
  writeWav(join(audioDir, 'others.wav'), () => 5, RATE);
  const lines = [
    { type: 'entry', version: 1, id, kind: 'meeting', title: 'Meeting', createdAt: '2025-03-04T10:00:00.000Z', modelId: null, modelName: 'digits', sourcePath: null },
    // Others' audio came first: the journal has its track first; the sources still list You first.
    { type: 'track', track: 'others', speaker: 'Others', file: 'others.wav', offsetSec: 1 },
    { type: 'track', track: 'you', speaker: 'You', file: 'you.wav', offsetSec: 0.5 },
    { type: 'segment', sessionId: 'm1', segmentId: 0, start: 0.6, end: 1.8, text: 'one two', devicesRan: ['CPU'], speaker: 'You',
      words: [{ text: 'one', start: 0.7, end: 0.9, confidence: 0.9 }, { text: 'two', start: 1.2, end: 1.4, confidence: 0.9 }] },
    { type: 'closed', at: '2025-03-04T10:00:03.000Z', durationSec: 2.5, recovered: false },
  ];
  writeFileSync(join(dir, 'entries', `${id}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  const history = await HistoryService.open({ dir, settings: () => SETTINGS, model: () => ({ id: null, name: null }), emit: () => undefined, notify: () => undefined, log: nullLogger });
  return { dir, history, id, audioDir };
}

test('history:media lists the mix (meeting time) and each track with its offset and length; other kinds have none', async () => {
  const { history, id } = await meetingHistory('media-list');
  const media = await historyMedia(history, id, (t) => mediaUrl({ mode: 'web', key: 'k' }, t));
  assert.deepEqual(media.sources.map((s) => [s.source, s.label, s.offsetSec, s.durationSec, s.url]), [
    ['mix', 'You and Others', 0, 2.5, `/media/history/${id}/mix.wav?key=k`],
    ['you', 'You', 0.5, 2, `/media/history/${id}/you.wav?key=k`],
    ['others', 'Others', 1, 1, `/media/history/${id}/others.wav?key=k`],
  ]);
  await history.recordFile({ jobId: 'f1', path: '/tmp/a.wav', text: 'hi', words: [], tokens: [], durationSec: 1, devicesRan: ['CPU'], elapsedMs: 1 });
  const file = (await history.list({ kind: 'file' })).entries[0]!;
  assert.deepEqual(await historyMedia(history, file.id, () => 'x'), { sources: [] });
  await history.dispose();
});

test('media requests: 200 whole, 206 with Content-Range, 416, HEAD, 405, 404; a linked track 403; deleting the entry deletes its audio', async () => {
  const { history, id, audioDir } = await meetingHistory('media-request');
  const get = (path: string, range: string | null = null, method = 'GET'): Promise<MediaAnswer> => answerMediaRequest(history, { method, path, range });

  const whole = await get(`${id}/you.wav`);
  assert.equal(whole.status, 200);
  assert.equal(whole.headers['content-type'], 'audio/wav');
  assert.equal(whole.headers['accept-ranges'], 'bytes');
  assert.deepEqual(await bodyOf(whole), readFileSync(join(audioDir, 'you.wav')));

  const part = await get(`${id}/mix.wav`, 'bytes=44-99');
  assert.equal(part.status, 206);
  const mixSize = WAV_HEADER_BYTES + 2.5 * RATE * 2;
  assert.equal(part.headers['content-range'], `bytes 44-99/${mixSize}`);
  assert.equal(part.headers['content-length'], '56');
  // Meeting time 0–0.5 s has no track yet: silence.
  assert.deepEqual(await bodyOf(part), Buffer.alloc(56));
  const at = (sec: number): string => `bytes=${WAV_HEADER_BYTES + sec * RATE * 2}-${WAV_HEADER_BYTES + sec * RATE * 2 + 3}`;
  // Meeting 1.5 s: You's sample 16000 (16000 % 100 = 0) + Others' 5; the next: You's 1 + 5.
  const both = await bodyOf(await get(`${id}/mix.wav`, at(1.5)));
  assert.deepEqual([both.readInt16LE(0), both.readInt16LE(2)], [5, 6]);
  // Meeting 2.25 s: Others ended at 2.0 s; You's sample 28000 + 0.
  const youOnly = await bodyOf(await get(`${id}/mix.wav`, at(2.25)));
  assert.deepEqual([youOnly.readInt16LE(0), youOnly.readInt16LE(2)], [0, 1]);

  const unsatisfiable = await get(`${id}/mix.wav`, `bytes=${mixSize}-`);
  assert.equal(unsatisfiable.status, 416);
  assert.equal(unsatisfiable.headers['content-range'], `bytes */${mixSize}`);
  const head = await get(`${id}/others.wav`, null, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.body, null);
  assert.equal(head.headers['content-length'], String(WAV_HEADER_BYTES + RATE * 2));
  assert.equal((await get(`${id}/you.wav`, null, 'PUT')).status, 405);
  assert.equal((await get(`../${id}/you.wav`)).status, 404);
  assert.equal((await get('20250101-000000-000000/you.wav')).status, 404);

  // A track file replaced by a link out of the entry's folder is refused, not followed.
  const outside = join(audioDir, '..', '..', 'stolen.wav');
  writeWav(outside, () => 9, 10);
  rmSync(join(audioDir, 'others.wav'));
  symlinkSync(outside, join(audioDir, 'others.wav'));
  const linked = await get(`${id}/others.wav`);
  assert.equal(linked.status, 403);
  assert.match(linked.text ?? '', /links outside/);

  await history.delete(id);
  assert.equal(existsSync(audioDir), false, 'the audio folder goes with the entry');
  assert.equal((await get(`${id}/you.wav`)).status, 404);
  await history.dispose();
});
