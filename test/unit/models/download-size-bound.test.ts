// A server that sends a hash but no size (no X-Linked-Size, no Content-Length: chunked) cannot make a
// download write more than the catalog's size allows: a 1 MB model whose server streams 24 MB is stopped
// near the bound, failed with SIZE_MISMATCH naming the catalog's size, and its bytes discarded.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { TestHttpsServer, hfRedirect, sha256 } from '../../support/https-server/server.js';
import { RESOLVE, downloadsDir, installedIds, makeManager, modelBytes, recordEvents, testCatalog } from './helpers.js';

let server: TestHttpsServer;
before(async () => {
  server = await TestHttpsServer.start();
});
after(async () => {
  await server.close();
});

test('no size from the server: the bytes are bounded by the catalog\'s size', async () => {
  const approx = 1_000_000;
  const model = modelBytes(approx);
  const sent = { bytes: 0 };
  // Announces the real model's hash and no size, then sends far more than the model.
  server.route(`${RESOLVE}/endless-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/endless`, model, { linkedSize: null, linkedSha256: sha256(model) }));
  server.route('/cdn/endless', async (req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    if (req.method === 'HEAD') return void res.end();
    const chunk = randomBytes(64 * 1024);
    for (let i = 0; i < 24 * 16 && !res.destroyed; i += 1) {
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      sent.bytes += chunk.length;
    }
    res.end();
  });
  const h = await makeManager(server, testCatalog([{ slug: 'endless', approxBytes: approx }]));
  try {
    const rec = recordEvents(h.manager);
    await h.manager.download('endless-q8_0');
    const done = await h.manager.waitForDownload('endless-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'SIZE_MISMATCH', JSON.stringify(done.error));
    assert.match(done.error!.message, /announced no size.*more than.*catalog/);
    const written = Math.max(0, ...rec.progress.map((p) => p.receivedBytes));
    // The catalog's size with its margin (a quarter and 1 MiB): estimates are a few percent off.
    assert.ok(written <= approx * 1.25 + 2 ** 20, `${written} bytes written for a ${approx}-byte model`);
    assert.ok(sent.bytes < 24 * 2 ** 20, 'the transfer was stopped, not read to its end');
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual((await downloadsDir(h.modelsDir)).filter((f) => f.endsWith('.partial')), [], 'the bytes are discarded');
  } finally {
    await h.cleanup();
  }
});
