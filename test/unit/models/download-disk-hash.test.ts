// Disk full (before starting, and ENOSPC while writing) and where the
// expected sha256 comes from (server X-Linked-Etag vs a catalog pin).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openWritable, type OpenWritable } from '../../../app/main/models/file-io.js';
import { TestHttpsServer, hfRedirect, serveBytes, sha256 } from '../../support/https-server/server.js';
import { RESOLVE, downloadsDir, installedIds, makeManager, modelBytes, recordEvents, testCatalog } from './helpers.js';

let server: TestHttpsServer;
before(async () => {
  server = await TestHttpsServer.start();
});
after(async () => {
  await server.close();
});

function hfFile(slug: string, data: Buffer, linked: { linkedSha256?: string | null } = {}): string {
  const cdn = `/cdn/${slug}`;
  server.route(`${RESOLVE}/${slug}-q8_0.gguf`, hfRedirect(`${server.origin}${cdn}`, data, linked));
  server.route(cdn, (req, res) => serveBytes(req, res, data, { chunkSize: 8192 }));
  return cdn;
}

test('disk full before starting: DISK_FULL with bytes needed/available, no GET sent', async () => {
  const data = modelBytes(50_000);
  const cdn = hfFile('full-disk', data);
  const h = await makeManager(server, testCatalog([{ slug: 'full-disk' }]), { freeSpace: async () => 1_000_000 });
  try {
    await h.manager.download('full-disk-q8_0');
    const done = await h.manager.waitForDownload('full-disk-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'DISK_FULL');
    assert.equal(done.error?.details?.bytesAvailable, 1_000_000);
    assert.ok((done.error?.details?.bytesNeeded ?? 0) > data.length);
    assert.match(done.error?.message ?? '', /Not enough disk space/);
    assert.equal(server.requestsFor(cdn).length, 0);
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('ENOSPC while writing: failed DISK_FULL, partial kept; after space is freed the retry reuses it', async () => {
  const data = modelBytes(300_000);
  const cdn = hfFile('enospc', data);
  let diskFull = true;
  // A file system that fills up after 100 000 bytes of this download.
  const fillingDisk: OpenWritable = async (filePath, mode) => {
    const real = await openWritable(filePath, mode);
    let written = 0;
    return {
      ...real,
      async write(chunk) {
        if (diskFull && written + chunk.length > 100_000) {
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        }
        written += chunk.length;
        await real.write(chunk);
      },
    };
  };
  const h = await makeManager(server, testCatalog([{ slug: 'enospc' }]), { openWritable: fillingDisk });
  try {
    await h.manager.download('enospc-q8_0');
    const failed = await h.manager.waitForDownload('enospc-q8_0');
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error?.code, 'DISK_FULL');
    assert.match(failed.error?.message ?? '', /became full/);
    assert.equal(server.requestsFor(cdn).length, 1, 'ENOSPC is not retried in a loop');
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), ['enospc-q8_0.gguf.partial', 'enospc-q8_0.gguf.partial.json']);
    const kept = readFileSync(path.join(h.modelsDir, '.downloads', 'enospc-q8_0.gguf.partial')).length;
    assert.ok(kept > 0 && kept <= 100_000);
    const state = JSON.parse(readFileSync(path.join(h.modelsDir, '.downloads', 'enospc-q8_0.gguf.partial.json'), 'utf8'));
    assert.equal(state.status, 'failed');
    assert.equal(state.error.code, 'DISK_FULL');

    diskFull = false;
    await h.manager.resume('enospc-q8_0');
    const done = await h.manager.waitForDownload('enospc-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.equal(server.requestsFor(cdn).at(-1)!.range, `bytes=${kept}-`);
    assert.deepEqual(await installedIds(h.manager), ['enospc-q8_0']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('server-provided sha256 (X-Linked-Etag) is used when the catalog has none, and enforced', async () => {
  const data = modelBytes(60_000);
  hfFile('srvhash', data);
  hfFile('srvbad', data, { linkedSha256: sha256(Buffer.from('something else')) });
  const h = await makeManager(server, testCatalog([{ slug: 'srvhash' }, { slug: 'srvbad' }]));
  try {
    await h.manager.download('srvhash-q8_0');
    const ok = await h.manager.waitForDownload('srvhash-q8_0');
    assert.equal(ok.state, 'installed');
    assert.equal(ok.hashSource, 'server');

    await h.manager.download('srvbad-q8_0');
    const bad = await h.manager.waitForDownload('srvbad-q8_0');
    assert.equal(bad.state, 'failed');
    assert.equal(bad.error?.code, 'HASH_MISMATCH');
    assert.deepEqual(await installedIds(h.manager), ['srvhash-q8_0']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('a catalog sha256 takes precedence over the server\'s (with a warning when they differ)', async () => {
  const data = modelBytes(60_000);
  hfFile('pinned', data, { linkedSha256: sha256(Buffer.from('stale server value')) });
  hfFile('pinwrong', data); // server right, catalog pin wrong → catalog wins → rejected
  const h = await makeManager(
    server,
    testCatalog([
      { slug: 'pinned', sha256: sha256(data) },
      { slug: 'pinwrong', sha256: sha256(Buffer.from('not this file')) },
    ]),
  );
  try {
    const rec = recordEvents(h.manager);
    await h.manager.download('pinned-q8_0');
    const ok = await h.manager.waitForDownload('pinned-q8_0');
    assert.equal(ok.state, 'installed', JSON.stringify(ok.error));
    assert.equal(ok.hashSource, 'catalog');
    assert.ok(rec.warnings.some((w) => /verifying against the catalog/.test(w)));

    await h.manager.download('pinwrong-q8_0');
    const bad = await h.manager.waitForDownload('pinwrong-q8_0');
    assert.equal(bad.state, 'failed');
    assert.equal(bad.error?.code, 'HASH_MISMATCH');
    assert.deepEqual(await installedIds(h.manager), ['pinned-q8_0']);
  } finally {
    await h.cleanup();
  }
});

test('no sha256 anywhere: HASH_UNAVAILABLE before anything is downloaded', async () => {
  const data = modelBytes(40_000);
  const cdn = hfFile('nohash', data, { linkedSha256: null });
  const h = await makeManager(server, testCatalog([{ slug: 'nohash' }]));
  try {
    await h.manager.download('nohash-q8_0');
    const done = await h.manager.waitForDownload('nohash-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'HASH_UNAVAILABLE');
    assert.match(done.error?.message ?? '', /cannot be verified/);
    assert.equal(server.requestsFor(cdn).length, 0, 'no GET');
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('the engine refusing a verified download: MODEL_INVALID with the engine\'s message, nothing installed', async () => {
  const data = Buffer.concat([Buffer.from('NOPE'), modelBytes(20_000)]); // verified bytes, but not a model
  hfFile('notmodel', data);
  const h = await makeManager(server, testCatalog([{ slug: 'notmodel' }]));
  try {
    await h.manager.download('notmodel-q8_0');
    const done = await h.manager.waitForDownload('notmodel-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'MODEL_INVALID');
    assert.match(done.error?.message ?? '', /not a GGUF file \(magic "NOPE"/);
    // The model's own file is named, never the internal .downloads/<file>.partial it was checked as.
    assert.match(done.error?.message ?? '', /^notmodel-q8_0\.gguf: /);
    assert.doesNotMatch(done.error?.message ?? '', /\.partial|\.downloads/);
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('an engine error that is not about the file (e.g. BUSY) keeps the verified bytes for a retry', async () => {
  const data = modelBytes(30_000);
  const cdn = hfFile('busy', data);
  let busy = true;
  const h = await makeManager(server, testCatalog([{ slug: 'busy' }]), {
    validateModel: async () => {
      if (busy) throw Object.assign(new Error('the engine is busy transcribing'), { code: 'BUSY' });
      return { architecture: 'hybrid_tdt_ctc', decoders: ['tdt', 'ctc'] };
    },
  });
  try {
    await h.manager.download('busy-q8_0');
    const failed = await h.manager.waitForDownload('busy-q8_0');
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error?.code, 'BUSY');
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), ['busy-q8_0.gguf.partial', 'busy-q8_0.gguf.partial.json']);
    busy = false;
    const gets = server.requestsFor(cdn).length;
    await h.manager.resume('busy-q8_0');
    assert.equal((await h.manager.waitForDownload('busy-q8_0')).state, 'installed');
    assert.equal(server.requestsFor(cdn).length, gets, 'not downloaded again');
    assert.deepEqual(await installedIds(h.manager), ['busy-q8_0']);
  } finally {
    await h.cleanup();
  }
});
