// Web mode: the same services behind the loopback WebSocket bridge. Guards
// (token, Host/Origin, loopback-only bind, path traversal, CSP), invoke
// round trips over a real WebSocket, dictation audio as binary frames, and the
// main-process event-loop delay during a session, measured in a separate
// server process started from the command line.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import type { AppInfo, SessionInfo, SessionSummary } from '../../app/ipc/contract.js';
import { audioSessionNumber } from '../../app/ipc/web-protocol.js';
import { isLoopbackBind } from '../../app/web/security.js';
import { startWebServer, type WebServer } from '../../app/web/server.js';
import { RATE, concat, frames, quiet, speechLike } from '../support/audio/signals.js';
import { BridgeClient } from './bridge-client.js';
import { tempDir, tinyModel, writeTestSettings } from './helpers.js';

const dir = tempDir('web');
const modelPath = tinyModel(dir, 'tdt');
const rendererDir = join(dir, 'renderer');
let web: WebServer;

before(async () => {
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>test page</title><script type="module" src="./assets/app.js"></script>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log("app");');
  writeFileSync(join(dir, 'secret.txt'), 'TOP SECRET');
  const userDataDir = join(dir, 'user');
  mkdirSync(userDataDir);
  writeTestSettings(userDataDir);
  web = await startWebServer({ userDataDir, rendererDir, modelPath, modelEndpoint: 'https://127.0.0.1:9' });
});
after(async () => {
  await web.close();
});

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: web.port, path, method, headers: { host: `127.0.0.1:${web.port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the URL carries the token in its fragment; the page and assets are served with a strict CSP', async () => {
  assert.equal(web.url, `http://127.0.0.1:${web.port}/#token=${web.token}`);
  assert.ok(web.token.length >= 40);
  const page = await get('/');
  assert.equal(page.status, 200);
  assert.match(page.body, /test page/);
  const csp = String(page.headers['content-security-policy']);
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'(;|$)/, 'no inline scripts, no eval');
  assert.match(csp, new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${web.port}`));
  assert.equal(page.headers['x-content-type-options'], 'nosniff');
  const asset = await get('/assets/app.js');
  assert.equal(asset.status, 200);
  assert.match(String(asset.headers['content-type']), /javascript/);
  assert.equal((await get('/settings')).status, 200, 'app routes serve the page');
  assert.equal((await get('/assets/missing.js')).status, 404);
  assert.equal((await get('/', {}, 'POST')).status, 405);
});

test('path traversal is refused in every spelling', async () => {
  for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%5csecret.txt', '/%00index.html', '/%E0%A4%A']) {
    const res = await get(path);
    assert.ok(res.status >= 400 && res.status < 500, `${path} → ${res.status}`);
    assert.doesNotMatch(res.body, /TOP SECRET/);
  }
});

test('DNS rebinding: requests for another Host name are refused', async () => {
  assert.equal((await get('/', { host: `evil.example:${web.port}` })).status, 421);
  assert.equal((await get('/', { host: 'localhost:1' })).status, 421);
  assert.equal((await get('/', { host: `localhost:${web.port}` })).status, 200);
});

test('the bridge needs the token (401 without or with a wrong one) and our own origin', async () => {
  await assert.rejects(BridgeClient.connect(web.port, ''), (e: { status?: number }) => e.status === 401);
  await assert.rejects(BridgeClient.connect(web.port, 'x'.repeat(43)), (e: { status?: number }) => e.status === 401);
  await assert.rejects(BridgeClient.connect(web.port, `${web.token}x`), (e: { status?: number }) => e.status === 401);
  await assert.rejects(BridgeClient.connect(web.port, web.token, { origin: 'http://evil.example' }), (e: { status?: number }) => e.status === 403);
  const client = await BridgeClient.connect(web.port, web.token, { origin: `http://127.0.0.1:${web.port}` });
  assert.ok(client.open);
  await client.close();
});

/** One raw HTTP/1.1 exchange on a fresh socket (targets no HTTP client would send); the status line's code. */
function rawRequest(request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(web.port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}

test('an unparsable request target is a 400 on every listener (upgrade and plain), before any other check, and the server stays up', async () => {
  const host = `127.0.0.1:${web.port}`;
  for (const target of ['//[', '//[::1', 'http://[', '//%zz@[']) {
    const upgrade = `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
    assert.equal(await rawRequest(upgrade), 400, `upgrade ${target}`);
    assert.equal(await rawRequest(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`), 400, `GET ${target}`);
  }
  assert.equal((await get('/')).status, 200, 'still serving');
  const client = await BridgeClient.connect(web.port, web.token);
  assert.ok((await client.invoke('app:info')).ok);
  await client.close();
});

test('more than one Host header is a 400 on every listener (ours first, then a foreign one), and the server stays up', async () => {
  const ours = `127.0.0.1:${web.port}`;
  for (const hosts of [[ours, 'evil.example'], [ours, ours], ['evil.example', ours]]) {
    const lines = hosts.map((h) => `Host: ${h}\r\n`).join('');
    assert.equal(await rawRequest(`GET / HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`), 400, `GET with Host ${hosts.join(' + ')}`);
    const upgrade = `GET /bridge?token=${web.token} HTTP/1.1\r\n${lines}Upgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';
    assert.equal(await rawRequest(upgrade), 400, `upgrade with Host ${hosts.join(' + ')}`);
  }
  assert.equal(await rawRequest(`GET / HTTP/1.1\r\nHost: ${ours}\r\nConnection: close\r\n\r\n`), 200, 'one Host of ours is served');
});

test('only loopback binds are allowed, and only the names the Host and Origin checks know', async () => {
  await assert.rejects(startWebServer({ host: '0.0.0.0', userDataDir: join(dir, 'never') }), /loopback only/);
  await assert.rejects(startWebServer({ host: '192.168.1.10', userDataDir: join(dir, 'never') }), /loopback only/);
  // Loopback, but a page served there would fail every Host check (and the URL printed would be wrong).
  await assert.rejects(startWebServer({ host: '127.0.0.2', userDataDir: join(dir, 'never') }), /127\.0\.0\.1, ::1 or localhost/);
  for (const host of ['127.0.0.1', '::1', 'localhost']) assert.equal(isLoopbackBind(host), true, host);
  for (const host of ['127.0.0.2', '127.1.2.3', '0.0.0.0', '::', 'LOCALHOST.', 'example.com']) assert.equal(isLoopbackBind(host), false, host);
});

test('invoke round trips over a real WebSocket; bad messages get error results and the connection survives', async () => {
  const client = await BridgeClient.connect(web.port, web.token);
  try {
    const info = await client.invoke<AppInfo>('app:info');
    assert.ok(info.ok);
    assert.equal(info.value.mode, 'web');
    assert.equal(info.value.engineAvailable, true);
    const status = await client.invoke<{ state: string; model: { path: string } | null }>('engine:status');
    assert.ok(status.ok && status.value.state === 'ready' && status.value.model?.path === modelPath);
    const devices = await client.invoke<{ devices: { name: string; memoryTotal: number }[] }>('devices:list');
    assert.ok(devices.ok && devices.value.devices.some((d) => d.name === 'CPU' && d.memoryTotal > 0), 'the CPU with its memory');
    const unknown = await client.invoke('nope:nope');
    assert.equal(unknown.ok ? null : unknown.error.code, 'UNKNOWN_CHANNEL');
    const bad = await client.invoke('settings:set', { threads: 'many' });
    assert.equal(bad.ok ? null : bad.error.code, 'INVALID_PAYLOAD');
    const notJson = await client.sendRaw('{nope');
    assert.equal(notJson.ok ? null : notJson.error.code, 'INVALID_PAYLOAD');
    // A channel that is not a string (String() of it would throw) is refused like any unknown channel.
    for (const channel of [{ toString: 1 }, { toString: null, valueOf: 2 }, ['app:info'], null, 7]) {
      const weird = await client.sendRaw(JSON.stringify({ t: 'invoke', id: 77, channel }), 77);
      assert.equal(weird.ok ? null : weird.error.code, 'UNKNOWN_CHANNEL', JSON.stringify(channel));
    }
    const noId = await client.sendRaw(JSON.stringify({ t: 'invoke', channel: 'app:info' }));
    assert.equal(noId.ok ? null : noId.error.code, 'INVALID_PAYLOAD');
    client.sendBinary(new Uint8Array([1, 2])); // a malformed audio frame is dropped
    const set = await client.invoke<{ dictation: { pauseMs: number } }>('settings:set', { dictation: { pauseMs: 650 } });
    assert.ok(set.ok && set.value.dictation.pauseMs === 650);
    assert.ok(client.open);
  } finally {
    await client.close();
  }
});

test('dictation over the bridge: audio frames in, partial/final events out, summary with exact sample counts', async () => {
  const client = await BridgeClient.connect(web.port, web.token);
  try {
    const audio = concat(quiet(0.5, 1), speechLike(1.2, 21), quiet(1.0, 2), speechLike(0.9, 22), quiet(0.3, 3));
    const started = await client.invoke<SessionInfo>('dictation:start', { sampleRate: RATE });
    assert.ok(started.ok);
    const n = audioSessionNumber(started.value.sessionId);
    let position = 0;
    const parts = frames(audio, 640);
    for (const frame of parts) {
      client.sendAudio(n, frame, position);
      position += frame.length;
      await sleep(10);
    }
    // Frames for a session this client does not own (or that does not exist) are ignored.
    client.sendAudio(n + 100, parts[0]!, 0);
    const stopped = await client.invoke<SessionSummary>('dictation:stop', { sessionId: started.value.sessionId });
    assert.ok(stopped.ok, JSON.stringify(stopped));
    const summary = stopped.value;
    assert.equal(summary.latency.framesReceived, parts.length);
    assert.equal(summary.latency.samplesReceived, audio.length);
    assert.equal(summary.latency.sampleGaps, 0);
    assert.equal(summary.segments.length, 2, 'the second phrase was still open at stop and was finalized');
    assert.equal(summary.segments[1]!.endSample, audio.length);
    await sleep(50);
    const finals = client.events.filter((e) => e.event === 'dictation:transcript' && (e.data as { kind: string }).kind === 'final');
    assert.deepEqual(finals.map((e) => e.data), summary.segments, 'the client saw the same finals');
    assert.ok(client.events.some((e) => e.event === 'dictation:state'));
    assert.ok(client.events.some((e) => e.event === 'dictation:latency'));
  } finally {
    await client.close();
  }
});

test('only the client that started a session may stop or cancel it; any client may read its summary', async () => {
  const owner = await BridgeClient.connect(web.port, web.token);
  const other = await BridgeClient.connect(web.port, web.token);
  try {
    const started = await owner.invoke<SessionInfo>('dictation:start', { sampleRate: RATE });
    assert.ok(started.ok);
    const { sessionId } = started.value;
    const missing = await other.invoke('dictation:stop', { sessionId: 's99999' });
    for (const channel of ['dictation:stop', 'dictation:cancel']) {
      const refused = await other.invoke(channel, { sessionId });
      assert.equal(refused.ok ? null : refused.error.code, 'SESSION_NOT_FOUND', channel);
      assert.equal(refused.ok ? null : refused.error.message, missing.ok ? null : missing.error.message.replace('s99999', sessionId),
        `${channel}: answered like a session that does not exist`);
    }
    const read = await other.invoke<SessionSummary>('dictation:summary', { sessionId });
    assert.ok(read.ok && read.value.sessionId === sessionId, 'the summary is readable (a reconnected page has a new client id)');
    const stopped = await owner.invoke<SessionSummary>('dictation:stop', { sessionId });
    assert.ok(stopped.ok, JSON.stringify(stopped));
  } finally {
    await owner.close();
    await other.close();
  }
});

test('a client that disconnects mid-session has its session finalized, not lost', async () => {
  const client = await BridgeClient.connect(web.port, web.token);
  const started = await client.invoke<SessionInfo>('dictation:start', { sampleRate: RATE });
  assert.ok(started.ok);
  const audio = concat(quiet(0.4, 4), speechLike(1, 23));
  const texts: string[] = [];
  const off = web.services.bus.on('dictation:transcript', (t) => {
    if (t.sessionId === started.value.sessionId && t.kind === 'final') texts.push(t.text);
  });
  let position = 0;
  for (const frame of frames(audio, 1600)) {
    client.sendAudio(audioSessionNumber(started.value.sessionId), frame, position);
    position += frame.length;
  }
  await sleep(100);
  await client.close();
  for (let i = 0; i < 100 && texts.length === 0; i += 1) await sleep(50);
  off();
  assert.equal(texts.length, 1, 'the open sentence got its final text');
});

// ---------------------------------------------------------------- separate server process

function startCli(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/web/server.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no URL from the server: ${out}${err}`)), 30_000);
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^PARAKEET_WEB_URL=(\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
}

test('command line server: prints its URL, serves a real-time session with a calm event loop, stops on SIGTERM', async () => {
  const userDataDir = join(dir, 'cli-user');
  mkdirSync(userDataDir);
  writeTestSettings(userDataDir);
  const { child, url } = await startCli(['--port', '0', '--user-data', userDataDir, '--model', modelPath, '--renderer', rendererDir]);
  try {
    const parsed = new URL(url);
    assert.equal(parsed.hostname, '127.0.0.1');
    const token = new URLSearchParams(parsed.hash.slice(1)).get('token')!;
    const client = await BridgeClient.connect(Number(parsed.port), token);
    const started = await client.invoke<SessionInfo>('dictation:start', { sampleRate: RATE });
    assert.ok(started.ok, JSON.stringify(started));
    // Six seconds at real time, 20 ms frames, like the AudioWorklet.
    const audio = concat(quiet(0.5, 5), speechLike(1.5, 24), quiet(0.8, 6), speechLike(1.6, 25), quiet(0.8, 7), speechLike(0.8, 26));
    const t0 = performance.now();
    let position = 0;
    for (const frame of frames(audio, 320)) {
      client.sendAudio(audioSessionNumber(started.value.sessionId), frame, position);
      position += frame.length;
      const due = t0 + (position / RATE) * 1000;
      await sleep(Math.max(0, due - performance.now()));
    }
    const stopped = await client.invoke<SessionSummary>('dictation:stop', { sessionId: started.value.sessionId });
    assert.ok(stopped.ok);
    const l = stopped.value.latency;
    assert.equal(l.sampleGaps, 0);
    assert.equal(l.samplesReceived, audio.length);
    assert.ok(l.eventLoopMaxMs !== null && l.eventLoopMaxMs !== undefined && l.eventLoopP99Ms !== null && l.eventLoopP99Ms !== undefined);
    console.log(`# web server process during a real-time session: event-loop delay p99 ${l.eventLoopP99Ms.toFixed(1)} ms, ` +
      `max ${l.eventLoopMaxMs.toFixed(1)} ms (target p99 < 50); first partial ${l.firstPartialMs?.toFixed(0)} ms, mean final ${l.meanFinalMs?.toFixed(0)} ms`);
    assert.ok(l.eventLoopMaxMs < 250, `event loop stalled ${l.eventLoopMaxMs} ms`);
    await client.close();
  } finally {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0, 'clean exit on SIGTERM');
  }
});
