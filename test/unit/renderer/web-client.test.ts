// The web bridge client against a fake socket: ids ↔ results, events,
// binary audio frames, invokes kept in order across a reconnect while audio
// sent during a drop is dropped and counted, backoff.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeAudioFrame, type ClientMessage } from '../../../app/ipc/web-protocol.js';
import { backoffDelay } from '../../../renderer/bridge/backoff.js';
import type { BridgeSocket, SocketHandlers } from '../../../renderer/bridge/socket.js';
import { bridgeUrlFromLocation, WebClient } from '../../../renderer/bridge/web-client.js';

class FakeSocket implements BridgeSocket {
  sent: (string | ArrayBuffer)[] = [];
  closed = false;
  constructor(readonly url: string, readonly handlers: SocketHandlers) {}
  send(data: string | ArrayBuffer): void {
    this.sent.push(data);
  }
  close(): void {
    this.closed = true;
  }
  invokes(): ClientMessage[] {
    return this.sent.filter((d): d is string => typeof d === 'string').map((d) => JSON.parse(d) as ClientMessage);
  }
  reply(id: number, result: unknown): void {
    this.handlers.message(JSON.stringify({ t: 'result', id, result }));
  }
}

function harness() {
  const sockets: FakeSocket[] = [];
  const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
  const client = new WebClient({
    url: 'ws://127.0.0.1:1/bridge?token=t',
    socketFactory: (url, handlers) => {
      const s = new FakeSocket(url, handlers);
      sockets.push(s);
      return s;
    },
    backoff: { baseMs: 100, maxMs: 1000, jitter: 0 },
    setTimer: (fn, ms) => {
      const t = { fn, ms, cleared: false };
      timers.push(t);
      return t;
    },
    clearTimer: (h) => {
      (h as { cleared: boolean }).cleared = true;
    },
  });
  const fire = (ms?: number) => {
    const t = timers.find((x) => !x.cleared && (ms === undefined || x.ms === ms));
    assert.ok(t, 'a pending timer');
    t.cleared = true;
    t.fn();
  };
  return { client, sockets, timers, fire, last: () => sockets[sockets.length - 1] };
}

describe('WebClient', () => {
  test('invokes queue until open, then resolve with the Result of their id', async () => {
    const h = harness();
    const p1 = h.client.invoke('engine:status');
    const p2 = h.client.invoke('devices:select', { name: 'CPU' });
    assert.equal(h.last().sent.length, 0);
    h.last().handlers.open();
    const [m1, m2] = h.last().invokes();
    assert.deepEqual(m2, { t: 'invoke', id: m2.id, channel: 'devices:select', payload: { name: 'CPU' } });
    assert.equal('payload' in m1, false);
    h.last().reply(m2.id, { ok: false, error: { code: 'DEVICE_UNAVAILABLE', message: 'no' } });
    h.last().reply(m1.id, { ok: true, value: { state: 'ready' } });
    assert.deepEqual(await p2, { ok: false, error: { code: 'DEVICE_UNAVAILABLE', message: 'no' } });
    assert.deepEqual(await p1, { ok: true, value: { state: 'ready' } });
  });

  test('events reach every listener until unsubscribed; unknown events and garbage are ignored', () => {
    const h = harness();
    h.last().handlers.open();
    const got: string[] = [];
    const off = h.client.on('notice', (n) => got.push(n.message));
    h.client.on('notice', (n) => got.push(`2:${n.message}`));
    h.last().handlers.message(JSON.stringify({ t: 'event', event: 'notice', data: { level: 'info', code: 'X', message: 'hi' } }));
    h.last().handlers.message(JSON.stringify({ t: 'event', event: 'bogus', data: {} }));
    h.last().handlers.message('{not json');
    off();
    h.last().handlers.message(JSON.stringify({ t: 'event', event: 'notice', data: { level: 'info', code: 'X', message: 'again' } }));
    assert.deepEqual(got, ['hi', '2:hi', '2:again']);
  });

  test('audio goes as binary frames with the session number', () => {
    const h = harness();
    h.last().handlers.open();
    h.client.sendAudio('s12', Float32Array.of(0.25, -0.5), 640);
    h.client.sendAudio('s12', Float32Array.of(1));
    const [frame, plain] = h.last().sent;
    assert.ok(frame instanceof ArrayBuffer && plain instanceof ArrayBuffer);
    const decoded = decodeAudioFrame(frame);
    assert.equal(decoded.sessionNumber, 12);
    assert.equal(decoded.startSample, 640);
    assert.deepEqual([...decoded.frame], [0.25, -0.5]);
    assert.equal(decodeAudioFrame(plain).startSample, undefined);
  });

  test('a drop fails in-flight invokes, shows disconnected, reconnects with backoff and sends the queued invokes', async () => {
    const h = harness();
    const states: string[] = [];
    h.client.onConnection((s) => states.push(s));
    h.last().handlers.open();
    const inFlight = h.client.invoke('engine:status');
    h.last().handlers.close(1006, '');
    const r = await inFlight;
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.error.code, 'DISCONNECTED');
    assert.equal(h.client.connection, 'disconnected');
    // While down: an invoke waits for the connection.
    const stop = h.client.invoke('dictation:stop', { sessionId: 's1' });
    assert.equal(h.timers.filter((t) => !t.cleared && t.ms === 100).length, 1);
    h.fire(100);
    assert.equal(h.sockets.length, 2);
    h.last().handlers.open();
    const [stopMsg] = h.last().invokes();
    assert.equal(stopMsg.channel, 'dictation:stop');
    h.last().reply(stopMsg.id, { ok: true, value: { sessionId: 's1' } });
    assert.equal((await stop).ok, true);
    assert.deepEqual(states, ['connected', 'disconnected', 'connected']);
  });

  test('an invoke waiting for a connection times out with DISCONNECTED', async () => {
    const h = harness();
    const p = h.client.invoke('engine:status');
    h.fire(20_000);
    const r = await p;
    assert.equal(!r.ok && r.error.code, 'DISCONNECTED');
    h.last().handlers.open();
    assert.equal(h.last().sent.length, 0, 'the timed-out request is not sent later');
  });

  test('audio sent while disconnected is dropped and counted per session, never replayed to the new connection', () => {
    const h = harness();
    h.last().handlers.open();
    h.client.sendAudio('s1', new Float32Array(4), 0);
    h.last().handlers.close(1006, '');
    // The server finalized s1 with the old connection; the next one is another client it would refuse.
    for (let i = 0; i < 3; i++) h.client.sendAudio('s1', new Float32Array(640), 4 + i * 640);
    h.client.sendAudio('s2', new Float32Array(320));
    const stop = h.client.invoke('dictation:stop', { sessionId: 's1' });
    h.fire(100);
    h.last().handlers.open();
    assert.equal(h.last().sent.some((d) => d instanceof ArrayBuffer), false, 'no audio replayed');
    assert.deepEqual(h.last().invokes().map((m) => m.channel), ['dictation:stop'], 'invokes still go, in order');
    assert.deepEqual(h.client.audioDropped, { frames: 4, samples: 3 * 640 + 320 });
    assert.deepEqual(h.client.takeDroppedAudio('s1'), { frames: 3, samples: 3 * 640 });
    assert.deepEqual(h.client.takeDroppedAudio('s1'), { frames: 0, samples: 0 }, 'taken once');
    assert.deepEqual(h.client.takeDroppedAudio('s2'), { frames: 1, samples: 320 });
    h.client.sendAudio('s3', new Float32Array(4), 0);
    assert.ok(h.last().sent.at(-1) instanceof ArrayBuffer, 'once connected, audio goes out again');
    void stop;
  });

  test('close() stops reconnecting', () => {
    const h = harness();
    h.last().handlers.open();
    h.client.close();
    assert.equal(h.last().closed, true);
    assert.equal(h.timers.filter((t) => !t.cleared).length, 0);
  });
});

describe('bridge helpers', () => {
  test('backoff grows exponentially up to the cap', () => {
    const o = { baseMs: 250, maxMs: 5000, jitter: 0 };
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, o)), [250, 500, 1000, 2000, 4000, 5000, 5000]);
    const jittered = backoffDelay(0, { baseMs: 1000, maxMs: 1000, jitter: 0.5 }, () => 0);
    assert.equal(jittered, 500);
  });

  test('the bridge URL comes from the page host and the #token fragment', () => {
    assert.equal(
      bridgeUrlFromLocation({ protocol: 'http:', host: '127.0.0.1:4321', hash: '#token=a+b/c%3D' }),
      'ws://127.0.0.1:4321/bridge?token=a%2Bb%2Fc%3D',
    );
    assert.equal(bridgeUrlFromLocation({ protocol: 'http:', host: 'h', hash: '' }), null);
  });
});
