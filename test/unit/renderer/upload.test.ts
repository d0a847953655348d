// The browser's uploader (renderer/bridge/upload.ts) against a stand-in
// bridge that acknowledges chunks when told to: it never has more than the
// window unacknowledged, reads the file one slice at a time, stops and asks
// the server to delete the upload on cancel, and reports a server failure or
// a dropped connection in words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventMap, ParakeetApi, Result, UploadProgress, UploadTicket } from '../../../app/ipc/contract.js';
import { uploadFile, type UploadSource } from '../../../renderer/bridge/upload.js';

const TICKET: UploadTicket = { uploadId: 7, path: '/u/uploads/u7/a.wav', chunkBytes: 100, windowBytes: 300, maxBytes: 1e9 };

class FakeBridge {
  readonly chunks: { offset: number; length: number }[] = [];
  readonly invokes: string[] = [];
  private listener: ((p: UploadProgress) => void) | null = null;
  received = 0;
  connected = true;
  maxAhead = 0;

  constructor(private readonly size: number) {}

  readonly api: Pick<ParakeetApi, 'invoke' | 'on' | 'sendUploadChunk'> = {
    invoke: (async (channel: string) => {
      this.invokes.push(channel);
      if (channel === 'files:uploadBegin') return { ok: true, value: TICKET };
      return { ok: true, value: undefined };
    }) as unknown as ParakeetApi['invoke'],
    on: (<E extends keyof EventMap>(event: E, listener: (d: EventMap[E]) => void) => {
      if (event === 'files:upload') this.listener = listener as unknown as (p: UploadProgress) => void;
      return () => (this.listener = null);
    }) as ParakeetApi['on'],
    sendUploadChunk: (uploadId, offset, bytes) => {
      if (!this.connected) return false;
      assert.equal(uploadId, TICKET.uploadId);
      this.chunks.push({ offset, length: bytes.byteLength });
      this.maxAhead = Math.max(this.maxAhead, offset + bytes.byteLength - this.received);
      return true;
    },
  };

  /** The server wrote every chunk sent so far. */
  ackAll(): void {
    const sent = this.chunks.reduce((n, c) => Math.max(n, c.offset + c.length), 0);
    this.received = sent;
    this.listener?.({ uploadId: TICKET.uploadId, receivedBytes: sent, sizeBytes: this.size, done: sent === this.size });
  }

  fail(message: string): void {
    this.listener?.({ uploadId: TICKET.uploadId, receivedBytes: this.received, sizeBytes: this.size, done: false, error: { code: 'UPLOAD_FAILED', message } });
  }
}

function source(size: number): UploadSource & { slices: number } {
  const s = {
    name: 'a.wav',
    size,
    slices: 0,
    slice(start: number, end: number) {
      s.slices += 1;
      return { arrayBuffer: async () => new ArrayBuffer(Math.min(end, size) - start) };
    },
  };
  return s;
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

async function pump(bridge: FakeBridge, done: { v: boolean }): Promise<void> {
  while (!done.v) {
    await tick();
    bridge.ackAll();
  }
}

test('sends every byte in order, never more than the window ahead of the acknowledgements', async () => {
  const bridge = new FakeBridge(1050);
  const file = source(1050);
  const progress: number[] = [];
  const done = { v: false };
  const pumping = pump(bridge, done);
  const result = await uploadFile(bridge.api, file, { onProgress: (r) => progress.push(r) });
  done.v = true;
  await pumping;
  assert.deepEqual(result, { ok: true, value: TICKET });
  assert.deepEqual(bridge.chunks.map((c) => c.offset), [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
  assert.equal(bridge.chunks.at(-1)!.length, 50);
  assert.ok(bridge.maxAhead <= TICKET.windowBytes, `at most the window ahead (${bridge.maxAhead})`);
  assert.equal(file.slices, 11, 'one slice read per chunk (never the whole file)');
  assert.equal(progress.at(-1), 1050);
});

test('cancel mid-upload stops sending and asks the server to delete the upload', async () => {
  const bridge = new FakeBridge(10_000);
  const controller = new AbortController();
  const uploading = uploadFile(bridge.api, source(10_000), { signal: controller.signal });
  await tick();
  bridge.ackAll();
  await tick();
  controller.abort();
  const result: Result<UploadTicket> = await uploading;
  assert.ok(!result.ok && result.error.code === 'ABORTED');
  assert.ok(bridge.chunks.length < 100, 'stopped early');
  assert.deepEqual(bridge.invokes, ['files:uploadBegin', 'files:uploadCancel']);
});

test('a failure the server reports ends the upload with its message; a dropped connection says so', async () => {
  const failing = new FakeBridge(10_000);
  const first = uploadFile(failing.api, source(10_000));
  await tick();
  failing.fail('The upload of a.wav stopped: the disk is full.');
  const r1 = await first;
  assert.ok(!r1.ok && r1.error.code === 'UPLOAD_FAILED' && /disk is full/.test(r1.error.message));

  const dropping = new FakeBridge(10_000);
  dropping.connected = false;
  const r2 = await uploadFile(dropping.api, source(10_000));
  assert.ok(!r2.ok && r2.error.code === 'DISCONNECTED' && /connection dropped while a\.wav was uploading/.test(r2.error.message));
});

test('no acknowledgement within the stall time: the upload fails and the server is asked to delete it', async () => {
  const bridge = new FakeBridge(10_000);
  const result = await uploadFile(bridge.api, source(10_000), { stallMs: 50 });
  assert.ok(!result.ok && result.error.code === 'UPLOAD_FAILED' && /stalled/.test(result.error.message), JSON.stringify(result));
  assert.equal(bridge.invokes.at(-1), 'files:uploadCancel');
});

test('chunk frames: id, offset and bytes round-trip; audio frames and upload chunks are never taken for each other', async () => {
  const { decodeAudioFrame, decodeUploadChunk, encodeAudioFrame, encodeUploadChunk, isUploadChunk } = await import('../../../app/ipc/web-protocol.js');
  const chunk = new Uint8Array(encodeUploadChunk(12, 2 ** 40, new Uint8Array([1, 2, 3])));
  assert.equal(isUploadChunk(chunk), true);
  const back = decodeUploadChunk(chunk);
  assert.deepEqual([back.uploadId, back.offset, [...back.bytes]], [12, 2 ** 40, [1, 2, 3]]);
  assert.throws(() => decodeAudioFrame(chunk), /an upload chunk/);
  for (const audio of [encodeAudioFrame(3, new Float32Array([0.5])), encodeAudioFrame(0x3fffffff, new Float32Array(2), 100)]) {
    assert.equal(isUploadChunk(new Uint8Array(audio)), false);
  }
  assert.throws(() => encodeAudioFrame(0x40000000, new Float32Array(1)), /out of range/);
  assert.throws(() => encodeUploadChunk(0, 0, new Uint8Array(1)), /out of range/);
  assert.throws(() => encodeUploadChunk(1, -1, new Uint8Array(1)), /not a byte position/);
  const bad = new Uint8Array(chunk);
  new DataView(bad.buffer).setFloat64(4, Number.NaN, true);
  assert.throws(() => decodeUploadChunk(bad), /bad offset/);
  assert.throws(() => decodeUploadChunk(chunk.subarray(0, 8)), /malformed upload chunk/);
});
