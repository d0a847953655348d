// Fuzz of the web bridge, loopback only: random and mutated frames of every
// message type (invokes on every channel with mutated payloads and envelopes,
// results and events a client must never send, broken JSON, binary audio frames
// with random headers and sample indices), from a client with the token, and
// random upgrade and plain requests without it. The server runs in this
// process, so anything it fails to catch ends the test run; after every batch
// the server must still answer. Bounded in count and time; seeded, so a failure
// names the seed and the frame that caused it.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { INVOKE_CHANNELS, type Result, type SessionInfo } from '../../app/ipc/contract.js';
import { BRIDGE_PATH, audioSessionNumber, encodeAudioFrame, encodeUploadChunk, type ServerMessage } from '../../app/ipc/web-protocol.js';
import { startWebServer, type WebServer } from '../../app/web/server.js';
import { Rng } from '../support/model/rng.js';
import { tempDir, tinyModel, writeTestSettings } from './helpers.js';

const SEED = Number(process.env.PARAKEET_FUZZ_SEED ?? 20261201);
const TEXT_FRAMES = 600;
const BINARY_FRAMES = 400;
const RAW_REQUESTS = 150;
/** Wall-clock budget of the whole fuzz; the counts above normally finish well within it. */
const BUDGET_MS = 90_000;

const dir = tempDir('fuzz');
let web: WebServer;
let sessionNumber = -1;

before(async () => {
  const rendererDir = join(dir, 'renderer');
  mkdirSync(rendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>fuzz</title>');
  const userDataDir = join(dir, 'user');
  mkdirSync(userDataDir);
  writeTestSettings(userDataDir);
  web = await startWebServer({
    userDataDir,
    rendererDir,
    modelPath: tinyModel(dir, 'ctc'),
    modelEndpoint: 'https://127.0.0.1:9',
    services: { insertEnv: {} },
  });
});
after(async () => {
  await web.close();
});

/** A connection that pairs every text frame it sends with the next result the server answers. */
class FuzzClient {
  private readonly results: Result<unknown>[] = [];
  private wake: (() => void) | null = null;
  closed = false;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const message = JSON.parse(data.toString()) as ServerMessage;
      if (message.t !== 'result') return;
      this.results.push(message.result);
      this.wake?.();
    });
    ws.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  static connect(): Promise<FuzzClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${web.port}${BRIDGE_PATH}?token=${web.token}`);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new FuzzClient(ws)));
      ws.once('error', reject);
    });
  }

  /** Sends a text frame; the result it got back (every text frame is answered, well-formed or not). */
  async send(text: string, timeoutMs = 20_000): Promise<Result<unknown>> {
    this.ws.send(text);
    const deadline = Date.now() + timeoutMs;
    while (this.results.length === 0) {
      if (this.closed) throw new Error('the server closed the connection');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    return this.results.shift()!;
  }

  sendBinary(data: Uint8Array | ArrayBuffer): void {
    this.ws.send(data);
  }

  close(): void {
    this.ws.close();
  }
}

const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

function randomString(rng: Rng): string {
  const pieces = ['', 'a', 'cpu', 'CPU', '/', '..', '../../../etc/passwd', '/dev/zero', '/nonexistent/x.gguf', 's1', 'f1', '\u0000',
    '\u001b[31m', '\u202e', 'x'.repeat(5000), '%00', '🦜', 'Ctrl+Shift+Space', 'https://127.0.0.1:9/', ...PROTO_NAMES, ...INVOKE_CHANNELS];
  return pieces[rng.int(pieces.length)]!;
}

function randomValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 2 ? 6 : 9)) {
    case 0: return null;
    case 1: return rng.next() < 0.5;
    case 2: return [0, -1, 1.5, 1e308, -1e308, 2 ** 53, 16000, 8000, 192001][rng.int(9)];
    case 3: return randomString(rng);
    case 4: return rng.int(1_000_000);
    case 5: return rng.uniform(-1e6, 1e6);
    case 6: return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--) out[randomString(rng)] = randomValue(rng, depth + 1);
      return out;
    }
  }
}

/** Payloads that are close to valid, so mutations reach the validators' and handlers' deeper branches. */
const SEEDS: unknown[] = [
  undefined, { name: 'CPU' }, { path: '/nonexistent/model.gguf' }, { id: 'no-such-model' }, { locale: 'en-US' },
  { threads: 1, dictation: { pauseMs: 650 }, insert: { mode: 'off' } }, { sampleRate: 16000, preRollMs: 0 },
  { sessionId: 's1', sentSamples: 0 }, { path: '/nonexistent/a.wav', options: { decoder: 'ctc' } }, { jobId: 'f1' },
  { query: 'x', kind: 'file', limit: 5, offset: 0 }, { id: '20250101-120000-abcdef' }, { text: 'hi' },
];

function mutate(rng: Rng, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || rng.next() < 0.2) return rng.next() < 0.5 ? randomValue(rng) : value;
  const copy: Record<string, unknown> = Array.isArray(value) ? { ...value } : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const op = rng.int(4);
  if (op === 0 && keys.length > 0) delete copy[keys[rng.int(keys.length)]!];
  else if (op === 1 || keys.length === 0) copy[randomString(rng)] = randomValue(rng);
  else {
    const key = keys[rng.int(keys.length)]!;
    copy[key] = mutate(rng, copy[key]);
  }
  return copy;
}

/** One text frame: an invoke (mutated envelope or payload), another message type, or broken text. */
function textFrame(rng: Rng, id: number): string {
  const channel = (): unknown => {
    const r = rng.int(10);
    if (r < 7) return INVOKE_CHANNELS[rng.int(INVOKE_CHANNELS.length)];
    if (r === 7) return { toString: 1 };
    return randomValue(rng);
  };
  switch (rng.int(8)) {
    case 0: return JSON.stringify({ t: 'result', id, result: randomValue(rng) });
    case 1: return JSON.stringify({ t: 'event', event: randomString(rng), data: randomValue(rng) });
    case 2: return JSON.stringify(randomValue(rng));
    case 3: {
      const text = JSON.stringify({ t: 'invoke', id, channel: channel(), payload: mutate(rng, SEEDS[rng.int(SEEDS.length)]) });
      const at = rng.int(text.length);
      // Text-level damage: truncation, a deleted or inserted character.
      return [text.slice(0, at), text.slice(0, at) + text.slice(at + 1), `${text.slice(0, at)}${'{}[]",:\\x'[rng.int(10)]}${text.slice(at)}`][rng.int(3)]!;
    }
    case 4: return JSON.stringify({ t: 'invoke', id: randomValue(rng), channel: channel(), payload: randomValue(rng) });
    default: return JSON.stringify({ t: 'invoke', id, channel: channel(), payload: mutate(rng, SEEDS[rng.int(SEEDS.length)]) });
  }
}

function binaryFrame(rng: Rng): Uint8Array | ArrayBuffer {
  const samples = new Float32Array(rng.int(700));
  for (let i = 0; i < samples.length; i++) samples[i] = [rng.uniform(-1, 1), Number.NaN, Number.POSITIVE_INFINITY, 1e30][rng.int(4)]!;
  // Session numbers stay below bit 30, which marks upload chunks (web-protocol.ts).
  const number = rng.next() < 0.7 && sessionNumber >= 0 ? sessionNumber : rng.int(0x3fffffff);
  switch (rng.int(5)) {
    case 0: return new Uint8Array(Array.from({ length: rng.int(40) }, () => rng.int(256)));
    case 1: return encodeAudioFrame(number, samples);
    case 2: {
      // A sample index anywhere: in order, jumping far ahead, back, or not a valid index at all.
      const frame = new Uint8Array(encodeAudioFrame(number, samples, 0));
      const index = [rng.int(1_000_000), rng.int(2 ** 40), -5, 1.5, Number.NaN, 2 ** 60][rng.int(6)]!;
      new DataView(frame.buffer).setFloat64(4, index, true);
      return frame;
    }
    case 3: {
      // An upload chunk for an id that may or may not exist, at any offset, its header bytes mutated.
      const frame = new Uint8Array(encodeUploadChunk(1 + rng.int(8), rng.int(10_000), new Uint8Array(rng.int(5000))));
      for (let i = rng.int(3); i > 0; i--) frame[rng.int(12)] = rng.int(256);
      return frame;
    }
    default: {
      const frame = new Uint8Array(encodeAudioFrame(number, samples, rng.int(100_000)));
      for (let i = rng.int(4); i > 0; i--) frame[rng.int(Math.min(frame.length, 12))] = rng.int(256);
      return frame;
    }
  }
}

async function alive(client: FuzzClient): Promise<void> {
  const info = await client.send(JSON.stringify({ t: 'invoke', id: 1, channel: 'app:info' }));
  assert.equal(info.ok, true, `app:info: ${JSON.stringify(info)}`);
}

test(`fuzz with the token: every text frame is answered, binary frames never hurt, the server stays up (seed ${SEED})`, { timeout: BUDGET_MS + 60_000 }, async () => {
  const rng = new Rng(SEED, 'bridge');
  const started = Date.now();
  let client = await FuzzClient.connect();
  const session = await client.send(JSON.stringify({ t: 'invoke', id: 2, channel: 'dictation:start', payload: { sampleRate: 16000 } }));
  assert.ok(session.ok, JSON.stringify(session));
  sessionNumber = audioSessionNumber((session.value as SessionInfo).sessionId);
  let text = 0;
  let binary = 0;
  while ((text < TEXT_FRAMES || binary < BINARY_FRAMES) && Date.now() - started < BUDGET_MS) {
    if (text < TEXT_FRAMES) {
      const frame = textFrame(rng, 100 + text);
      const result = await client.send(frame).catch((error: Error) => {
        throw new Error(`text frame ${text} ${frame.slice(0, 300)}: ${error.message}`);
      });
      assert.equal(typeof result.ok, 'boolean', `frame ${text}: a Result`);
      if (!result.ok) assert.match(result.error.code, /^[A-Z_]+$/, `frame ${text}: a coded error`);
      text += 1;
    }
    for (let i = 0; i < 4 && binary < BINARY_FRAMES; i++, binary++) client.sendBinary(binaryFrame(rng));
    if (text % 50 === 0) {
      await alive(client);
      // A frame may legitimately end the session (its own stop or cancel); the fuzz goes on with a new one.
      if (client.closed) client = await FuzzClient.connect();
    }
  }
  await alive(client);
  client.close();
  assert.ok(text >= 100, `only ${text} text frames in the time budget`);
});

/** Raw bytes to the port; the status code of the reply (0: closed without one). */
function raw(request: string | Buffer): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(web.port, '127.0.0.1', () => socket.write(request));
    let reply = '';
    socket.setEncoding('latin1');
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', (chunk: string) => {
      reply += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0)));
  });
}

test(`fuzz without the token: random upgrade and plain requests are refused, never answered 101, and the server stays up (seed ${SEED})`, async () => {
  const rng = new Rng(SEED, 'upgrade');
  const targets = ['/bridge', '//[', '/bridge?token=', `/bridge?token=${'x'.repeat(43)}`, '/bridge?token=%zz', '//[::1]/bridge', '/%', '*',
    'http://[', '/bridge#', `/bridge?token=${'a'.repeat(600)}`, '/bridge?token[]=1', '/\u00ff'];
  const hosts = [`127.0.0.1:${web.port}`, `localhost:${web.port}`, 'evil.example', '', '[', `[::1]:${web.port}`];
  for (let i = 0; i < RAW_REQUESTS; i++) {
    let target = targets[rng.int(targets.length)]!;
    if (rng.next() < 0.3) target += String.fromCharCode(33 + rng.int(94));
    const host = hosts[rng.int(hosts.length)]!;
    const upgrade = rng.next() < 0.7;
    const lines = [`GET ${target} HTTP/1.1`, `Host: ${host}`, 'Connection: ' + (upgrade ? 'Upgrade' : 'close')];
    if (upgrade) lines.push('Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==');
    if (rng.next() < 0.3) lines.push(`Origin: ${['http://evil.example', 'null', `http://127.0.0.1:${web.port}`][rng.int(3)]}`);
    const status = await raw(`${lines.join('\r\n')}\r\n\r\n`);
    assert.notEqual(status, 101, `${target} upgraded without the token`);
    if (upgrade) assert.ok(status >= 400 && status < 500, `upgrade ${target} (Host ${host}) → ${status}`);
  }
  // Not HTTP at all.
  for (let i = 0; i < 20; i++) await raw(Buffer.from(Array.from({ length: 1 + rng.int(200) }, () => rng.int(256))));
  const client = await FuzzClient.connect();
  await alive(client);
  client.close();
});
