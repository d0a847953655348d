// The upload store's limits at begin and under a hostile client: many clients announcing 4 GB each get
// no further than the total the folder may be asked to hold, and none past the free space; a burst of
// chunks past the window fails the upload with an event; a complete upload leaves nothing behind once its
// job ends, however it ends.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import type { FileTranscript, UploadProgress } from '../../../app/ipc/contract.js';
import { UploadStore } from '../../../app/main/files/uploads.js';
import { nullLogger } from '../../../app/main/log.js';
import { scratch } from './tmp.js';

const GB = 1_000_000_000;

test('40 uploads announcing 4 GB each: begin refuses past the open total and the free space, each with a reason', async () => {
  const dir = scratch('uploads-total');
  let free = 100 * GB;
  const store = await UploadStore.open(dir, nullLogger, {}, async () => free);
  const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => store.begin(`client-${i >> 1}`, { name: `big-${i}.wav`, sizeBytes: 4 * GB })));
  const accepted = results.filter((r) => r.status === 'fulfilled').length;
  assert.equal(accepted, 2, 'two 4 GB uploads fill the 8 GB the folder may hold');
  const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error & { code: string });
  assert.ok(refused.every((e) => e.code === 'BUSY' && /already under way.*past 8\.0 GB/.test(e.message)), refused[0]?.message);
  await store.dispose();

  // 5 GB free: the first 4 GB upload fits, the second does not (the first still has to write all of its bytes).
  free = 5 * GB;
  const first = await store.begin('a', { name: 'one.wav', sizeBytes: 4 * GB });
  await assert.rejects(store.begin('b', { name: 'two.wav', sizeBytes: 4 * GB }), (e: Error & { code: string }) => {
    assert.equal(e.code, 'DISK_FULL');
    assert.match(e.message, /two\.wav \(4\.0 GB\) does not fit: 5\.0 GB are free .*uploads under way still need 4\.0 GB\. Free some disk space/);
    return true;
  });
  await store.cancel('a', first.uploadId);
  assert.deepEqual(readdirSync(dir), []);
});

test('five 256 KiB chunks at once overrun the 1 MiB window: the upload fails with an event, nothing kept', async () => {
  const dir = scratch('uploads-window');
  const store = await UploadStore.open(dir, nullLogger, {}, async () => 100 * GB);
  const events: UploadProgress[] = [];
  store.on('progress', (_owner, p) => events.push(p));
  const ticket = await store.begin('a', { name: 'x.wav', sizeBytes: 6_000_000 });
  for (let i = 0; i < 5; i += 1) store.chunk('a', ticket.uploadId, i * 256 * 1024, new Uint8Array(256 * 1024));
  const deadline = Date.now() + 5000;
  while (!events.some((e) => e.error) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const failure = events.find((e) => e.error);
  assert.ok(failure, 'a failure event');
  assert.match(failure.error!.message, /more than 1048576 bytes sent ahead of the acknowledgements/);
  assert.deepEqual(readdirSync(dir), []);
});

test('a complete upload leaves nothing behind when its job ends, also when the job fails', async () => {
  const dir = scratch('uploads-complete');
  const store = await UploadStore.open(dir, nullLogger, {}, async () => 100 * GB);
  for (const outcome of ['ok', 'fails'] as const) {
    const events: UploadProgress[] = [];
    const off = store.on('progress', (_owner, p) => events.push(p));
    const size = 6_000_000;
    const ticket = await store.begin('a', { name: `${outcome}.wav`, sizeBytes: size });
    for (let offset = 0; offset < size; offset += 256 * 1024) {
      const length = Math.min(256 * 1024, size - offset);
      store.chunk('a', ticket.uploadId, offset, new Uint8Array(length));
      while (!events.some((e) => e.receivedBytes >= offset + length || e.error)) await new Promise((r) => setTimeout(r, 2));
    }
    assert.ok(events.at(-1)!.done, JSON.stringify(events.at(-1)));
    const run = async (): Promise<FileTranscript> => {
      if (outcome === 'fails') throw new Error('not audio');
      return { text: '' } as FileTranscript;
    };
    if (outcome === 'ok') await store.transcribe('a', ticket.uploadId, run);
    else await assert.rejects(store.transcribe('a', ticket.uploadId, run), /not audio/);
    assert.deepEqual(readdirSync(dir), [], `after a job that ${outcome === 'ok' ? 'succeeded' : 'failed'}`);
    off();
  }
});

test('a complete upload nobody transcribes is deleted after the stall time, as is one whose client leaves', async () => {
  const dir = scratch('uploads-untranscribed');
  const store = await UploadStore.open(dir, nullLogger, { stallMs: 300 }, async () => 100 * GB);
  const events: UploadProgress[] = [];
  store.on('progress', (_owner, p) => events.push(p));
  for (const leave of [false, true]) {
    events.length = 0;
    const ticket = await store.begin('a', { name: 'done.wav', sizeBytes: 1000 });
    store.chunk('a', ticket.uploadId, 0, new Uint8Array(1000));
    while (!events.some((e) => e.done)) await new Promise((r) => setTimeout(r, 5));
    assert.equal(readdirSync(dir).length, 1, 'complete, waiting for its job');
    if (leave) await store.dropOwner('a');
    else await new Promise((r) => setTimeout(r, 600));
    assert.deepEqual(readdirSync(dir), [], leave ? 'its client left' : 'nobody transcribed it');
    assert.equal(store.open, 0);
  }
});
