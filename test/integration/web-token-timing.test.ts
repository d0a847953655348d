// The bridge's token check takes no longer for a token that is nearly right: refused upgrades are timed,
// interleaved, for tokens wrong everywhere, wrong only in their last character, and of another length
// (a bounded loop; medians compared with room for a shared machine's noise). The comparison itself is
// constant-time (both sides hashed, then timingSafeEqual: app/web/security.ts), so no group may stand out.
import assert from 'node:assert/strict';
import net from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { startWebServer, type WebServer } from '../../app/web/server.js';
import { tokenMatches } from '../../app/web/security.js';
import { tempDir } from './helpers.js';

const ROUNDS = 150;
let web: WebServer;

before(async () => {
  const dir = tempDir('token-timing');
  web = await startWebServer({ userDataDir: join(dir, 'user'), rendererDir: join(dir, 'renderer'), engineMode: 'inline', modelEndpoint: 'https://127.0.0.1:9' });
});
after(async () => {
  await web?.close();
});

/** One upgrade with `token` on a fresh socket: the status code and the time from sending to the answer's end (ms). */
function upgrade(token: string): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(web.port, '127.0.0.1');
    let text = '';
    let sentAt = 0;
    socket.setEncoding('latin1');
    socket.on('connect', () => {
      sentAt = performance.now();
      socket.write(`GET /bridge?token=${encodeURIComponent(token)} HTTP/1.1\r\nHost: 127.0.0.1:${web.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    });
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), ms: performance.now() - sentAt }));
  });
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

test('the comparison is right for every kind of wrong token', () => {
  const token = web.token;
  assert.equal(tokenMatches(token, token), true);
  for (const wrong of [`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, `${token}x`, token.slice(0, -1), '', 'x'.repeat(513)]) {
    assert.equal(tokenMatches(wrong, token), false, JSON.stringify(wrong));
  }
  assert.equal(tokenMatches(null, token), false);
});

test(`refused upgrades take as long for a token wrong only in its last character as for one wrong everywhere (${ROUNDS} rounds)`, { timeout: 120_000 }, async () => {
  const token = web.token;
  const groups: Record<string, () => string> = {
    everywhere: () => 'z'.repeat(token.length),
    lastCharacter: () => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`,
    longer: () => `${token}x`,
  };
  const times: Record<string, number[]> = { everywhere: [], lastCharacter: [], longer: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    // Interleaved, so a slow moment of the machine falls on every group alike.
    for (const [name, make] of Object.entries(groups)) {
      const { status, ms } = await upgrade(make());
      assert.equal(status, 401, `${name}: refused`);
      times[name]!.push(ms);
    }
  }
  const medians = Object.fromEntries(Object.entries(times).map(([name, t]) => [name, median(t)]));
  const slowest = Math.max(...Object.values(medians));
  const fastest = Math.min(...Object.values(medians));
  // Noise on a loaded machine is a fraction of a millisecond to a few; a content-dependent check or delay
  // (the probe's report: 1.2 ms against 2 s) is orders of magnitude more.
  assert.ok(slowest - fastest < Math.max(2, fastest), `medians (ms): ${JSON.stringify(medians)}`);
  process.stdout.write(`# refused-upgrade medians (ms, ${ROUNDS} rounds each): ${JSON.stringify(Object.fromEntries(Object.entries(medians).map(([k, v]) => [k, Number(v.toFixed(3))])))}\n`);
});
