// Downloads against a real local HTTPS server: the happy path in Hugging
// Face's shape (302 + X-Linked-* headers), HTTP errors, retries, the queue,
// and the redirect/host rules. Each test checks the installed list exactly
// and what is left in <models>/.downloads.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TestHttpsServer, hfRedirect, serveBytes, sha256 } from '../../support/https-server/server.js';
import {
  RESOLVE,
  downloadsDir,
  installedIds,
  makeManager,
  modelBytes,
  recordEvents,
  testCatalog,
} from './helpers.js';

let server: TestHttpsServer;
before(async () => {
  server = await TestHttpsServer.start();
});
after(async () => {
  await server.close();
});

test('full download: HF redirect, server size + sha256, verified, validated, renamed, listed', async () => {
  const data = modelBytes(300_000);
  server.route(`${RESOLVE}/full-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/full`, data));
  // ≥ 4 ms a chunk: the transfer then lasts well over the meter's 50 ms minimum for a speed (37 chunks
  // at 1 ms finished inside it on a fast machine, and no event carried a speed or an ETA).
  server.route('/cdn/full', (req, res) => serveBytes(req, res, data, { chunkSize: 8192, delayMs: 4 }));
  const h = await makeManager(server, testCatalog([{ slug: 'full', approxBytes: 123 }]));
  try {
    const rec = recordEvents(h.manager);
    const queued = await h.manager.download('full-q8_0');
    assert.ok(['queued', 'downloading'].includes(queued.state)); // the queue was empty: it may have started
    const done = await h.manager.waitForDownload('full-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.equal(done.hashSource, 'server');

    const installed = await h.manager.listInstalled();
    assert.deepEqual(installed.map((m) => m.id), ['full-q8_0']);
    const m = installed[0]!;
    assert.equal(m.bytes, data.length);
    assert.equal(m.sha256, sha256(data));
    assert.equal(m.architecture, 'hybrid_tdt_ctc');
    assert.deepEqual(m.source, { kind: 'catalog', catalogId: 'full-q8_0' });
    assert.equal(m.license?.spdx, 'CC-BY-4.0');
    assert.ok(readFileSync(path.join(h.modelsDir, 'full-q8_0.gguf')).equals(data));
    assert.deepEqual(await downloadsDir(h.modelsDir), [], 'no partial or state left behind');

    // states in order, progress sane: monotonic, total = server size, throttled
    const states = rec.states.filter((s) => s.id === 'full-q8_0').map((s) => s.state);
    assert.deepEqual(
      states.filter((s, i) => s !== states[i - 1]),
      ['queued', 'downloading', 'verifying', 'validating', 'installed'],
    );
    assert.ok(rec.progress.length >= 2);
    const last = rec.progress.at(-1)!;
    assert.equal(last.receivedBytes, data.length);
    assert.equal(last.totalBytes, data.length);
    for (let i = 1; i < rec.progress.length; i++) {
      assert.ok(rec.progress[i]!.receivedBytes >= rec.progress[i - 1]!.receivedBytes);
    }
    assert.ok(rec.progress.some((p) => p.bytesPerSecond > 0 && p.etaSeconds !== null));
    // a HEAD probe first, then one GET; both went through the redirect
    assert.equal(server.requestsFor(`${RESOLVE}/full-q8_0.gguf`, 'HEAD').length, 1);
    assert.equal(server.requestsFor('/cdn/full').length, 1);
    assert.equal(server.requestsFor('/cdn/full', 'HEAD').length, 0, 'the probe stops at the HF hop (signed CDN URLs may refuse HEAD)');

    // downloading an installed model is a no-op
    assert.equal((await h.manager.download('full-q8_0')).state, 'installed');
  } finally {
    await h.cleanup();
  }
});

test('404: failed with HTTP_STATUS 404, nothing installed, nothing left on disk', async () => {
  const h = await makeManager(server, testCatalog([{ slug: 'missing' }]));
  try {
    await h.manager.download('missing-q8_0');
    const done = await h.manager.waitForDownload('missing-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'HTTP_STATUS');
    assert.equal(done.error?.details?.status, 404);
    assert.match(done.error?.message ?? '', /not found/);
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('500 on the first GET is retried and the download succeeds', async () => {
  const data = modelBytes(100_000);
  server.route(`${RESOLVE}/flaky-q8_0.gguf`, async (req, res, _log, nth) => {
    if (req.method === 'GET' && nth === 1) {
      res.statusCode = 500;
      res.end('boom');
      return;
    }
    await serveBytes(req, res, data, { extraHeaders: { 'x-linked-etag': `"${sha256(data)}"` } });
  });
  const h = await makeManager(server, testCatalog([{ slug: 'flaky' }]));
  try {
    await h.manager.download('flaky-q8_0');
    const done = await h.manager.waitForDownload('flaky-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.deepEqual(
      server.requestsFor(`${RESOLVE}/flaky-q8_0.gguf`).map((r) => r.status),
      [500, 200],
    );
    assert.deepEqual(await installedIds(h.manager), ['flaky-q8_0']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('permanent 503: gives up after the retry budget, failed, nothing installed', async () => {
  server.route(`${RESOLVE}/down-q8_0.gguf`, (_req, res) => {
    res.statusCode = 503;
    res.end();
  });
  const h = await makeManager(server, testCatalog([{ slug: 'down' }]));
  try {
    await h.manager.download('down-q8_0');
    const done = await h.manager.waitForDownload('down-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'HTTP_STATUS');
    assert.equal(done.error?.details?.status, 503);
    assert.match(done.error?.message ?? '', /gave up after 3 retries/);
    assert.equal(server.requestsFor(`${RESOLVE}/down-q8_0.gguf`, 'HEAD').length, 4); // 1 + 3 retries
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('queue: two downloads run one after the other, in request order', async () => {
  const a = modelBytes(120_000);
  const b = modelBytes(80_000);
  for (const [slug, data] of [['qa', a], ['qb', b]] as const) {
    server.route(`${RESOLVE}/${slug}-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/${slug}`, data));
    server.route(`/cdn/${slug}`, (req, res) => serveBytes(req, res, data, { chunkSize: 8192, delayMs: 2 }));
  }
  const h = await makeManager(server, testCatalog([{ slug: 'qa' }, { slug: 'qb' }]));
  try {
    const order: string[] = [];
    h.manager.on('state', (s) => order.push(`${s.id}:${s.state}`));
    await h.manager.download('qa-q8_0');
    const second = await h.manager.download('qb-q8_0');
    assert.equal(second.state, 'queued');
    const [da, db] = await Promise.all([h.manager.waitForDownload('qa-q8_0'), h.manager.waitForDownload('qb-q8_0')]);
    assert.equal(da.state, 'installed');
    assert.equal(db.state, 'installed');
    // qb starts only after qa is installed
    assert.ok(order.indexOf('qa-q8_0:installed') < order.indexOf('qb-q8_0:downloading'), order.join(' '));
    const gets = server.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/cdn/q')).map((r) => r.path);
    assert.deepEqual(gets, ['/cdn/qa', '/cdn/qb']);
    assert.deepEqual(await installedIds(h.manager), ['qa-q8_0', 'qb-q8_0']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('redirect to an allowed host is followed; to a host off the allowlist is refused', async () => {
  const data = modelBytes(50_000);
  server.route(`${RESOLVE}/moved-q8_0.gguf`, hfRedirect(`${server.localhostOrigin}/cdn/moved`, data));
  server.route('/cdn/moved', (req, res) => serveBytes(req, res, data));

  const allowed = await makeManager(server, testCatalog([{ slug: 'moved' }]), { extraAllowedHosts: ['localhost'] });
  try {
    await allowed.manager.download('moved-q8_0');
    assert.equal((await allowed.manager.waitForDownload('moved-q8_0')).state, 'installed');
    assert.deepEqual(await installedIds(allowed.manager), ['moved-q8_0']);
  } finally {
    await allowed.cleanup();
  }

  const before = server.requestsFor('/cdn/moved', 'HEAD').length;
  const refused = await makeManager(server, testCatalog([{ slug: 'moved' }]));
  try {
    await refused.manager.download('moved-q8_0');
    const done = await refused.manager.waitForDownload('moved-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'HOST_NOT_ALLOWED');
    assert.match(done.error?.message ?? '', /localhost/);
    assert.equal(server.requestsFor('/cdn/moved', 'HEAD').length, before, 'the disallowed host was never contacted');
    assert.deepEqual(await installedIds(refused.manager), []);
    assert.deepEqual(await downloadsDir(refused.manager.modelsDir), []);
  } finally {
    await refused.cleanup();
  }
});

test('http:// endpoints and redirects to http:// are refused (INSECURE_URL)', async () => {
  await assert.rejects(
    makeManager(null, testCatalog([{ slug: 'x' }]), { endpoint: 'http://mirror.example' }),
    (e: { code?: string }) => e.code === 'INSECURE_URL',
  );
  const data = modelBytes(10_000);
  server.route(`${RESOLVE}/plain-q8_0.gguf`, hfRedirect(`http://127.0.0.1:${server.port}/cdn/plain`, data));
  const h = await makeManager(server, testCatalog([{ slug: 'plain' }]));
  try {
    assert.throws(() => h.manager.setEndpoint('http://mirror.example'), { code: 'INSECURE_URL' });
    assert.equal(h.manager.getEndpoint(), server.origin);
    await h.manager.download('plain-q8_0');
    const done = await h.manager.waitForDownload('plain-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'INSECURE_URL');
    assert.deepEqual(await installedIds(h.manager), []);
  } finally {
    await h.cleanup();
  }
});

test('two quick download() calls make one job and one transfer', async () => {
  const data = modelBytes(40_000);
  server.route(`${RESOLVE}/twice-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/twice`, data));
  server.route('/cdn/twice', (req, res) => serveBytes(req, res, data));
  const h = await makeManager(server, testCatalog([{ slug: 'twice' }]));
  try {
    const [a, b] = await Promise.all([h.manager.download('twice-q8_0'), h.manager.download('twice-q8_0')]);
    assert.equal(a.id, b.id);
    assert.equal((await h.manager.waitForDownload('twice-q8_0')).state, 'installed');
    assert.equal(server.requestsFor('/cdn/twice').length, 1);
    assert.equal(h.manager.listDownloads().length, 1);
    assert.deepEqual(await installedIds(h.manager), ['twice-q8_0']);
  } finally {
    await h.cleanup();
  }
});

test('unknown and not-yet-supported models are refused up front', async () => {
  const h = await makeManager(server, testCatalog([{ slug: 'stream', engineSupport: 'not-yet' }]));
  try {
    await assert.rejects(h.manager.download('nope'), { code: 'UNKNOWN_MODEL' });
    await assert.rejects(h.manager.download('stream-q8_0'), { code: 'UNSUPPORTED_MODEL' });
    assert.deepEqual(h.manager.listDownloads(), []);
  } finally {
    await h.cleanup();
  }
});
