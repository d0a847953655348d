// Web mode's media route for History's player: a meeting's audio only with
// the per-start media key (which only history:media, over the token-protected
// bridge, hands out), Range answered with 206 for seeking, every traversal
// spelling refused, and the page's CSP allowing media from that path alone.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HistoryMedia } from '../../app/ipc/contract.js';
import { wavHeader } from '../../app/main/meeting/wav-journal.js';
import { startWebServer, type WebServer } from '../../app/web/server.js';
import { BridgeClient } from './bridge-client.js';
import { tempDir, writeTestSettings } from './helpers.js';

const dir = tempDir('web-media');
const id = '20250304-100000-abcdef';
/** A long meeting's transcript (~2 h of finals with their words): a media request must not read it. */
const SEGMENTS = 20_000;
let web: WebServer;

before(async () => {
  const userDataDir = join(dir, 'user');
  const history = join(userDataDir, 'history');
  mkdirSync(join(history, 'entries'), { recursive: true });
  mkdirSync(join(history, 'audio', id), { recursive: true });
  writeTestSettings(userDataDir);
  const data = Buffer.alloc(16000 * 2, 1);
  writeFileSync(join(history, 'audio', id, 'you.wav'), Buffer.concat([wavHeader(16000, data.length), data]));
  const lines = [
    { type: 'entry', version: 1, id, kind: 'meeting', title: 'Meeting', createdAt: '2025-03-04T10:00:00.000Z', modelId: null, modelName: null, sourcePath: null },
    { type: 'track', track: 'you', speaker: 'You', file: 'you.wav', offsetSec: 0.25 },
    ...Array.from({ length: SEGMENTS }, (_, i) => ({
      type: 'segment', sessionId: 'm1', segmentId: i, start: i, end: i + 1, text: 'one two three four five six seven eight nine ten', devicesRan: ['CPU'], speaker: 'You',
      words: 'one two three four five six seven eight nine ten'.split(' ').map((w, k) => ({ word: w, start: i + k / 10, end: i + (k + 1) / 10 })),
    })),
    { type: 'closed', at: '2025-03-04T10:00:02.000Z', durationSec: 1.25, recovered: false },
  ];
  writeFileSync(join(history, 'entries', `${id}.jsonl`), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  web = await startWebServer({ userDataDir, rendererDir: join(dir, 'renderer'), engineMode: 'inline', modelEndpoint: 'https://127.0.0.1:9' });
});
after(async () => {
  await web.close();
});

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: web.port, path, headers: { host: `127.0.0.1:${web.port}`, ...headers } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a meeting track plays only with the key from history:media, seeks with Range, and nothing else is reachable', async () => {
  const client = await BridgeClient.connect(web.port, web.token);
  const media = await client.invoke<HistoryMedia>('history:media', { id });
  await client.close();
  assert.ok(media.ok, JSON.stringify(media));
  const [source] = media.value.sources;
  assert.deepEqual([source!.source, source!.offsetSec, source!.durationSec], ['you', 0.25, 1]);
  const url = new URL(source!.url, `http://127.0.0.1:${web.port}`);
  assert.equal(url.pathname, `/media/history/${id}/you.wav`);
  const key = url.searchParams.get('key')!;
  assert.ok(key.length >= 40);
  assert.notEqual(key, web.token, 'the bridge token never travels in a request line');

  const whole = await get(`${url.pathname}${url.search}`);
  assert.equal(whole.status, 200);
  assert.equal(whole.headers['content-type'], 'audio/wav');
  assert.equal(whole.body.length, 44 + 32000);
  const part = await get(`${url.pathname}${url.search}`, { range: 'bytes=100-199' });
  assert.equal(part.status, 206);
  assert.equal(part.headers['content-range'], `bytes 100-199/${44 + 32000}`);
  assert.equal(part.body.length, 100);

  assert.equal((await get(url.pathname)).status, 401, 'no key');
  assert.equal((await get(`${url.pathname}?key=${'x'.repeat(43)}`)).status, 401, 'a wrong key');
  for (const path of [`/media/history/../history/entries/${id}.jsonl`, `/media/history/%2e%2e/entries/${id}.jsonl`, `/media/history/${id}/..%2fyou.wav`,
    `/media/history/${id}/you.wav/..`, '/media/history/index.json']) {
    const res = await get(`${path}?key=${encodeURIComponent(key)}`);
    // Refused, or (a `..` the URL parser folded away, leaving no media path) the static server's page: never the entry or audio.
    assert.ok((res.status >= 400 && res.status < 500) || /text\/html/.test(String(res.headers['content-type'])), `${path} → ${res.status}`);
    assert.doesNotMatch(res.body.toString('latin1'), /"type":"entry"|RIFF/, path);
  }
  const csp = String((await get('/')).headers['content-security-policy']);
  assert.match(csp, new RegExp(`media-src http://127\\.0\\.0\\.1:${web.port}/media/history/ http://localhost:${web.port}/media/history/(;|$)`));
});

test('300 parallel overlapping Range requests of a long meeting, single and multiple: every one a correct 206 (or the whole as a 200 for several ranges) within a player\'s patience', async () => {
  const client = await BridgeClient.connect(web.port, web.token);
  const media = await client.invoke<HistoryMedia>('history:media', { id });
  await client.close();
  assert.ok(media.ok);
  const url = new URL(media.value.sources[0]!.url, `http://127.0.0.1:${web.port}`);
  const size = 44 + 32000;
  const whole = (await get(`${url.pathname}${url.search}`)).body;
  const agent = new http.Agent({ keepAlive: false, maxSockets: 300 });
  const ranges = Array.from({ length: 300 }, (_, i) => (i % 3 === 2 ? `bytes=${i}-${i + 500},${i + 100}-${i + 900}` : `bytes=${i * 50}-${i * 50 + 4999}`));
  const answers = await Promise.all(ranges.map((range) => new Promise<{ range: string; status: number; contentRange?: string; body: Buffer }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: web.port, path: `${url.pathname}${url.search}`, agent, headers: { host: `127.0.0.1:${web.port}`, range } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ range, status: res.statusCode ?? 0, contentRange: res.headers['content-range'], body: Buffer.concat(parts) }));
    });
    // A player gives up on a range that does not come; each request used to parse the whole meeting.
    req.setTimeout(30_000, () => req.destroy(new Error(`${range}: no answer within 30 s`)));
    req.on('error', reject);
    req.end();
  })));
  agent.destroy();
  for (const a of answers) {
    if (a.range.includes(',')) {
      assert.equal(a.status, 200, `${a.range}: several ranges → the whole`);
      assert.ok(a.body.equals(whole));
      continue;
    }
    const [, first, last] = /^bytes=(\d+)-(\d+)$/.exec(a.range)!.map(Number) as [number, number, number];
    const end = Math.min(last, size - 1);
    assert.equal(a.status, 206, `${a.range} → ${a.status}: ${a.body.toString('latin1').slice(0, 120)}`);
    assert.equal(a.contentRange, `bytes ${first}-${end}/${size}`);
    assert.ok(a.body.equals(whole.subarray(first, end + 1)), `${a.range}: the bytes of that range`);
  }
});
