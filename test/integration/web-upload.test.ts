// Web-mode uploads, server side, over the real bridge (startWebServer, real
// engine process, tiny generated model): a WAV sent in chunks with the window
// respected is acknowledged in order and transcribes to exactly what the same
// file gives by path; the folder is empty afterwards. Rule breakers — chunks
// out of order, too large, past the announced size, ahead of the window,
// hostile headers, another client's id — fail the upload (or are ignored)
// with a reason, and the server stays up. Cancel, disconnect and a stall
// delete what arrived.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FileTranscript, UploadProgress, UploadTicket } from '../../app/ipc/contract.js';
import { encodeUploadChunk } from '../../app/ipc/web-protocol.js';
import { encodeWav16 } from '../../app/shared/wav.js';
import { startWebServer, type WebServer } from '../../app/web/server.js';
import { concat, quiet, RATE, speechLike } from '../unit/app/signals.js';
import { BridgeClient } from './bridge-client.js';
import { tempDir, tinyModel } from './helpers.js';

const TOKEN = 'upload-test-token';
const LIMITS = { chunkBytes: 4096, windowBytes: 16_384, maxBytes: 2_000_000, perClient: 2, stallMs: 1500 };
let web: WebServer;
let dir: string;
let wavPath: string;
let wav: Uint8Array;

before(async () => {
  dir = tempDir('upload');
  wav = encodeWav16(concat(quiet(0.3, 1), speechLike(1.7, 5), quiet(0.3, 2)), RATE);
  wavPath = join(dir, 'meeting notes.wav');
  writeFileSync(wavPath, wav);
  web = await startWebServer({
    userDataDir: join(dir, 'user'), token: TOKEN, modelPath: tinyModel(dir, 'tdt'), modelEndpoint: 'https://127.0.0.1:9',
    services: { uploadLimits: LIMITS },
  });
});
after(async () => {
  await web?.close();
});

const uploadsDir = (): string => join(dir, 'user', 'uploads');
const progressOf = (client: BridgeClient, uploadId: number): UploadProgress[] =>
  client.events.filter((e) => e.event === 'files:upload').map((e) => e.data as UploadProgress).filter((p) => p.uploadId === uploadId);

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function begin(client: BridgeClient, name: string, sizeBytes: number): Promise<UploadTicket> {
  const r = await client.invoke<UploadTicket>('files:uploadBegin', { name, sizeBytes });
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

/** Sends `bytes` as the browser's uploader does: chunks in order, never more than the window unacknowledged. */
async function sendAll(client: BridgeClient, ticket: UploadTicket, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const length = Math.min(ticket.chunkBytes, bytes.length - offset);
    const acked = (): number => Math.max(0, ...progressOf(client, ticket.uploadId).map((p) => p.receivedBytes));
    await until(() => offset - acked() + length <= ticket.windowBytes, 'the window to open');
    client.sendBinary(encodeUploadChunk(ticket.uploadId, offset, bytes.subarray(offset, offset + length)));
    offset += length;
  }
  await until(() => progressOf(client, ticket.uploadId).some((p) => p.done || p.error), 'the last acknowledgement');
}

test('a WAV sent in chunks arrives whole, acknowledged in order, and transcribes exactly as the same file by path', async () => {
  const client = await BridgeClient.connect(web.port, TOKEN);
  const ticket = await begin(client, '../../etc/meeting notes.wav', wav.length);
  assert.deepEqual([ticket.chunkBytes, ticket.windowBytes, ticket.maxBytes], [LIMITS.chunkBytes, LIMITS.windowBytes, LIMITS.maxBytes]);
  // Only the base name is used, inside the uploads folder.
  assert.equal(ticket.path, join(uploadsDir(), `u${ticket.uploadId}`, 'meeting notes.wav'));
  await sendAll(client, ticket, wav);
  const progress = progressOf(client, ticket.uploadId);
  assert.ok(progress.length >= Math.ceil(wav.length / LIMITS.chunkBytes), 'one acknowledgement per chunk');
  for (let i = 1; i < progress.length; i += 1) assert.ok(progress[i]!.receivedBytes > progress[i - 1]!.receivedBytes, 'acknowledged in order');
  assert.deepEqual(progress.at(-1), { uploadId: ticket.uploadId, receivedBytes: wav.length, sizeBytes: wav.length, done: true });
  assert.ok(existsSync(ticket.path), 'complete under its own name');
  assert.ok(!existsSync(`${ticket.path}.part`), 'the .part file was renamed');

  const uploaded = await client.invoke<FileTranscript>('files:transcribeUpload', { uploadId: ticket.uploadId });
  const direct = await client.invoke<FileTranscript>('files:transcribe', { path: wavPath });
  assert.ok(uploaded.ok && direct.ok, JSON.stringify([uploaded, direct]));
  assert.equal(uploaded.value.text, direct.value.text);
  assert.equal(uploaded.value.durationSec, direct.value.durationSec);
  assert.deepEqual(uploaded.value.words, direct.value.words);
  assert.equal(uploaded.value.path, ticket.path);
  // The job's progress events named the upload's path (the renderer matches its job by it).
  assert.ok(client.events.some((e) => e.event === 'files:progress' && (e.data as { path?: string }).path === ticket.path));
  assert.deepEqual(readdirSync(uploadsDir()), [], 'deleted once the job ended');
  assert.equal(web.services.uploads.open, 0);
  await client.close();
});

test('begin refuses an empty file, one over the size limit, and a third open upload, each with a reason', async () => {
  const client = await BridgeClient.connect(web.port, TOKEN);
  const empty = await client.invoke('files:uploadBegin', { name: 'a.wav', sizeBytes: 0 });
  assert.ok(!empty.ok && empty.error.code === 'BAD_AUDIO' && /empty/.test(empty.error.message));
  const big = await client.invoke('files:uploadBegin', { name: 'big.wav', sizeBytes: LIMITS.maxBytes + 1 });
  assert.ok(!big.ok && big.error.code === 'BAD_ARGUMENT' && /limited to 2\.0 MB/.test(big.error.message), JSON.stringify(big));
  const a = await begin(client, 'a.wav', 10);
  const b = await begin(client, 'b.wav', 10);
  const third = await client.invoke('files:uploadBegin', { name: 'c.wav', sizeBytes: 10 });
  assert.ok(!third.ok && third.error.code === 'BUSY', JSON.stringify(third));
  await client.invoke('files:uploadCancel', { uploadId: a.uploadId });
  await client.invoke('files:uploadCancel', { uploadId: b.uploadId });
  assert.deepEqual(readdirSync(uploadsDir()), []);
  await client.close();
});

for (const [label, send, reason] of [
  ['a chunk out of order', (c: BridgeClient, t: UploadTicket) => c.sendBinary(encodeUploadChunk(t.uploadId, 4096, new Uint8Array(100))), /byte 4096 arrived where byte 0 was expected/],
  ['a chunk larger than the ticket allows', (c: BridgeClient, t: UploadTicket) => c.sendBinary(encodeUploadChunk(t.uploadId, 0, new Uint8Array(LIMITS.chunkBytes + 1))), /a chunk of 4097 bytes/],
  ['more bytes than announced', (c: BridgeClient, t: UploadTicket) => {
    c.sendBinary(encodeUploadChunk(t.uploadId, 0, new Uint8Array(4000)));
    c.sendBinary(encodeUploadChunk(t.uploadId, 4000, new Uint8Array(2000)));
  }, /more bytes than the 5000 announced/],
  ['chunks past the window without waiting', (c: BridgeClient, t: UploadTicket) => {
    // Sent in one go: the server parses many frames per socket read, long before their writes are done.
    for (let i = 0; i < 40; i += 1) c.sendBinary(encodeUploadChunk(t.uploadId, i * 4096, new Uint8Array(4096)));
  }, /sent ahead of the acknowledgements/],
] as const) {
  test(`${label}: the upload fails with the reason and its file is deleted`, async () => {
    const client = await BridgeClient.connect(web.port, TOKEN);
    const size = label === 'more bytes than announced' ? 5000 : 1_000_000;
    const ticket = await begin(client, 'x.wav', size);
    send(client, ticket);
    await until(() => progressOf(client, ticket.uploadId).some((p) => p.error), 'the failure');
    const failure = progressOf(client, ticket.uploadId).find((p) => p.error)!;
    assert.equal(failure.error!.code, 'UPLOAD_FAILED');
    assert.match(failure.error!.message, reason);
    assert.match(failure.error!.message, /Nothing was kept; try again\./);
    await until(() => readdirSync(uploadsDir()).length === 0, 'the folder to be removed');
    const late = await client.invoke('files:transcribeUpload', { uploadId: ticket.uploadId });
    assert.ok(!late.ok && late.error.code === 'NOT_FOUND');
    await client.close();
  });
}

test('transcribing before every byte arrived is refused; another client can neither feed, cancel nor transcribe the upload', async () => {
  const owner = await BridgeClient.connect(web.port, TOKEN);
  const other = await BridgeClient.connect(web.port, TOKEN);
  const ticket = await begin(owner, 'mine.wav', wav.length);
  const early = await owner.invoke('files:transcribeUpload', { uploadId: ticket.uploadId });
  assert.ok(!early.ok && early.error.code === 'BAD_ARGUMENT' && /0 of \d+ bytes/.test(early.error.message), JSON.stringify(early));
  other.sendBinary(encodeUploadChunk(ticket.uploadId, 0, wav.subarray(0, 100)));
  assert.equal((await other.invoke('files:uploadCancel', { uploadId: ticket.uploadId })).ok, true); // to it, nothing exists
  const stolen = await other.invoke('files:transcribeUpload', { uploadId: ticket.uploadId });
  assert.ok(!stolen.ok && stolen.error.code === 'NOT_FOUND');
  // The owner's upload is untouched: it completes from byte 0.
  await sendAll(owner, ticket, wav);
  assert.equal(progressOf(owner, ticket.uploadId).at(-1)?.done, true);
  assert.deepEqual(progressOf(other, ticket.uploadId), [], 'acknowledgements go to the owner only');
  await owner.invoke('files:uploadCancel', { uploadId: ticket.uploadId });
  await owner.close();
  await other.close();
});

test('cancel mid-upload, a disconnect mid-upload and a stall each delete what arrived', async () => {
  const a = await BridgeClient.connect(web.port, TOKEN);
  const cancelled = await begin(a, 'cancel.wav', 100_000);
  a.sendBinary(encodeUploadChunk(cancelled.uploadId, 0, new Uint8Array(4096)));
  await until(() => progressOf(a, cancelled.uploadId).length > 0, 'the first acknowledgement');
  assert.equal((await a.invoke('files:uploadCancel', { uploadId: cancelled.uploadId })).ok, true);
  assert.ok(!existsSync(join(uploadsDir(), `u${cancelled.uploadId}`)));

  const dropped = await begin(a, 'drop.wav', 100_000);
  a.sendBinary(encodeUploadChunk(dropped.uploadId, 0, new Uint8Array(4096)));
  await until(() => progressOf(a, dropped.uploadId).length > 0, 'the first acknowledgement');
  await a.close();
  await until(() => !existsSync(join(uploadsDir(), `u${dropped.uploadId}`)) && web.services.uploads.open === 0, 'the disconnect cleanup');

  const b = await BridgeClient.connect(web.port, TOKEN);
  const stalled = await begin(b, 'stall.wav', 100_000);
  b.sendBinary(encodeUploadChunk(stalled.uploadId, 0, new Uint8Array(4096)));
  await until(() => progressOf(b, stalled.uploadId).some((p) => p.error), 'the stall', LIMITS.stallMs + 3000);
  assert.match(progressOf(b, stalled.uploadId).find((p) => p.error)!.error!.message, /nothing arrived for 2 s/);
  assert.deepEqual(readdirSync(uploadsDir()), []);
  await b.close();
});

test('hostile chunk frames are refused without harm: the server answers the next invoke', async () => {
  const client = await BridgeClient.connect(web.port, TOKEN);
  const ticket = await begin(client, 'h.wav', 1000);
  const header = (word: number, offset: number): Uint8Array => {
    const out = new Uint8Array(20);
    const view = new DataView(out.buffer);
    view.setUint32(0, word >>> 0, true);
    view.setFloat64(4, offset, true);
    return out;
  };
  const flag = 0x40000000;
  for (const frame of [
    new Uint8Array([0, 0, 0, 0x40]), // flag, no offset
    header(flag | ticket.uploadId, Number.NaN),
    header(flag | ticket.uploadId, -1),
    header(flag | ticket.uploadId, 2 ** 60),
    header(flag | 0, 0), // id 0 names nothing
    header(flag | 0x3fffffff, 0),
    new Uint8Array(12).fill(0xff), // both flags: audio with a position, session 0x7fffffff
  ]) client.sendBinary(frame);
  // Empty chunk for the real upload: a rule broken, so it fails with a reason.
  client.sendBinary(encodeUploadChunk(ticket.uploadId, 0, new Uint8Array(0)));
  await until(() => progressOf(client, ticket.uploadId).some((p) => p.error), 'the failure');
  assert.match(progressOf(client, ticket.uploadId).find((p) => p.error)!.error!.message, /a chunk of 0 bytes/);
  const info = await client.invoke('app:info');
  assert.equal(info.ok, true);
  assert.equal(client.open, true);
  await client.close();
});
