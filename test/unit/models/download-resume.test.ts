// Interrupted downloads: a cut connection resumed with Range (bytes on disk
// reused), a server that ignores Range, a corrupted byte, pause/resume,
// cancel on a slow server, an app restart mid-download, a partial that is
// already complete (416), and a run that stopped between moving the finished
// file into place and listing it.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { InstalledIndex } from '../../../app/main/models/installed-index.js';
import type { ValidatedModelInfo } from '../../../app/main/models/types.js';
import { TestHttpsServer, hfRedirect, serveBytes, sha256 } from '../../support/https-server/server.js';
import {
  RESOLVE,
  downloadsDir,
  fakeValidate,
  installedIds,
  makeManager,
  modelBytes,
  recordEvents,
  tempDir,
  testCatalog,
  waitForBytes,
} from './helpers.js';

let server: TestHttpsServer;
before(async () => {
  server = await TestHttpsServer.start();
});
after(async () => {
  await server.close();
});

function hfFile(slug: string, data: Buffer, serve: Parameters<typeof serveBytes>[3] | ((nth: number) => Parameters<typeof serveBytes>[3])): string {
  const cdn = `/cdn/${slug}`;
  server.route(`${RESOLVE}/${slug}-q8_0.gguf`, hfRedirect(`${server.origin}${cdn}`, data));
  server.route(cdn, (req, res, _log, nth) => serveBytes(req, res, data, typeof serve === 'function' ? serve(nth) : serve));
  return cdn;
}

test('connection cut mid-file: resumed with Range, bytes on disk reused, only the rest sent', async () => {
  const data = modelBytes(400_000);
  const cdn = hfFile('cut', data, (nth) => (nth === 1 ? { cutAfter: 150_000 } : {}));
  const h = await makeManager(server, testCatalog([{ slug: 'cut' }]));
  try {
    await h.manager.download('cut-q8_0');
    const done = await h.manager.waitForDownload('cut-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    const gets = server.requestsFor(cdn);
    assert.equal(gets.length, 2);
    assert.equal(gets[0]!.range, undefined);
    const m = /^bytes=(\d+)-$/.exec(gets[1]!.range ?? '');
    assert.ok(m, `second request carried Range (${gets[1]!.range})`);
    const resumeAt = Number(m[1]);
    assert.ok(resumeAt > 0 && resumeAt <= 150_000, `resumed at ${resumeAt}`);
    assert.equal(gets[1]!.ifRange, gets[0] && `"cdn-${sha256(data).slice(0, 16)}"`, 'If-Range carried the ETag');
    assert.equal(gets[1]!.status, 206);
    assert.equal(gets[1]!.bytesSent, data.length - resumeAt, 'the server sent only the rest');
    assert.ok(readFileSync(path.join(h.modelsDir, 'cut-q8_0.gguf')).equals(data));
    assert.deepEqual(await installedIds(h.manager), ['cut-q8_0']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('server that ignores Range: the 200 body replaces the partial, result still correct', async () => {
  const data = modelBytes(300_000);
  const cdn = hfFile('norange', data, (nth) => (nth === 1 ? { cutAfter: 100_000, ignoreRange: true } : { ignoreRange: true }));
  const h = await makeManager(server, testCatalog([{ slug: 'norange' }]));
  try {
    const rec = recordEvents(h.manager);
    await h.manager.download('norange-q8_0');
    const done = await h.manager.waitForDownload('norange-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    const gets = server.requestsFor(cdn);
    assert.equal(gets.length, 2);
    assert.match(gets[1]!.range ?? '', /^bytes=\d+-$/);
    assert.equal(gets[1]!.status, 200);
    assert.equal(gets[1]!.bytesSent, data.length);
    assert.ok(rec.warnings.some((w) => /no Range support/.test(w)));
    assert.ok(readFileSync(path.join(h.modelsDir, 'norange-q8_0.gguf')).equals(data));
    assert.deepEqual(await installedIds(h.manager), ['norange-q8_0']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('server that ignores Range and always breaks at the same point: NETWORK after a bounded number of tries, saying why', async () => {
  const data = modelBytes(300_000);
  const cdn = hfFile('stuck', data, { cutAfter: 100_000, ignoreRange: true });
  const h = await makeManager(server, testCatalog([{ slug: 'stuck' }]));
  try {
    await h.manager.download('stuck-q8_0');
    // Without a bound on restarts that make no new progress this never ends.
    const done = await Promise.race([
      h.manager.waitForDownload('stuck-q8_0'),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still restarting after 20 s (${server.requestsFor(cdn).length} GETs)`)), 20_000)),
    ]);
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'NETWORK', JSON.stringify(done.error));
    assert.match(done.error?.message ?? '', /does not resume downloads \(it ignores Range requests\)/);
    assert.match(done.error?.message ?? '', /starts over from the beginning/);
    const gets = server.requestsFor(cdn);
    // The first GET, then one per retry of the budget (3 in these tests).
    assert.ok(gets.length >= 2 && gets.length <= 5, `${gets.length} GETs`);
    assert.deepEqual(await installedIds(h.manager), []);
  } finally {
    await h.cleanup();
  }
});

test('corrupted byte: HASH_MISMATCH, nothing installed, partial discarded', async () => {
  const data = modelBytes(200_000);
  hfFile('corrupt', data, { corruptAt: 123_456 });
  let validated = 0;
  const hv = await makeManager(server, testCatalog([{ slug: 'corrupt' }]), {
    validateModel: async () => {
      validated += 1;
      return { architecture: 'x', decoders: [] };
    },
  });
  try {
    await hv.manager.download('corrupt-q8_0');
    const done = await hv.manager.waitForDownload('corrupt-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'HASH_MISMATCH');
    assert.match(done.error?.message ?? '', /corrupted/);
    assert.equal(validated, 0, 'a file that failed verification never reaches the engine');
    assert.deepEqual(await installedIds(hv.manager), []);
    assert.deepEqual(await downloadsDir(hv.modelsDir), [], 'corrupt bytes are not kept for resume');
  } finally {
    await hv.cleanup();
  }
});

test('pause keeps the partial; resume continues from it with Range', async () => {
  const data = modelBytes(400_000);
  const cdn = hfFile('pause', data, { chunkSize: 8192, delayMs: 5 });
  const h = await makeManager(server, testCatalog([{ slug: 'pause' }]));
  try {
    await h.manager.download('pause-q8_0');
    await waitForBytes(h.manager, 'pause-q8_0', 60_000);
    const paused = await h.manager.pause('pause-q8_0');
    assert.equal(paused?.state, 'paused');
    assert.ok(paused!.receivedBytes >= 60_000);
    assert.deepEqual(await downloadsDir(h.modelsDir), ['pause-q8_0.gguf.partial', 'pause-q8_0.gguf.partial.json']);
    const state = JSON.parse(readFileSync(path.join(h.modelsDir, '.downloads', 'pause-q8_0.gguf.partial.json'), 'utf8'));
    assert.equal(state.status, 'paused');
    assert.equal(state.expectedBytes, data.length);
    assert.equal(state.expectedSha256, sha256(data));
    assert.deepEqual(await installedIds(h.manager), []);

    await h.manager.resume('pause-q8_0');
    const done = await h.manager.waitForDownload('pause-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    const gets = server.requestsFor(cdn);
    const resumeAt = Number(/^bytes=(\d+)-$/.exec(gets.at(-1)!.range ?? '')?.[1]);
    assert.ok(resumeAt >= 60_000, `resumed at ${resumeAt}`);
    assert.equal(gets.at(-1)!.bytesSent, data.length - resumeAt);
    assert.deepEqual(await installedIds(h.manager), ['pause-q8_0']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('slow server + cancel: stops at once, partial and state deleted, nothing installed', async () => {
  const data = modelBytes(2_000_000);
  hfFile('slow', data, { chunkSize: 4096, delayMs: 20 });
  const h = await makeManager(server, testCatalog([{ slug: 'slow' }]));
  try {
    await h.manager.download('slow-q8_0');
    await waitForBytes(h.manager, 'slow-q8_0', 8192);
    const t0 = Date.now();
    const c = await h.manager.cancel('slow-q8_0');
    assert.equal(c?.state, 'cancelled');
    assert.ok(Date.now() - t0 < 1000, 'cancel does not wait for the slow transfer');
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('app restart during a download: a new manager resumes from the persisted partial', async () => {
  const data = modelBytes(600_000);
  const cdn = hfFile('restart', data, { chunkSize: 8192, delayMs: 4 });
  const modelsDir = tempDir();
  const first = await makeManager(server, testCatalog([{ slug: 'restart' }]), {}, modelsDir);
  await first.manager.download('restart-q8_0');
  await waitForBytes(first.manager, 'restart-q8_0', 100_000);
  await first.manager.dispose(); // quit (or crash) mid-transfer: nothing is cleaned up
  const leftBytes = readFileSync(path.join(modelsDir, '.downloads', 'restart-q8_0.gguf.partial')).length;
  assert.ok(leftBytes >= 100_000);
  assert.deepEqual(await downloadsDir(modelsDir), ['restart-q8_0.gguf.partial', 'restart-q8_0.gguf.partial.json']);

  const second = await makeManager(server, testCatalog([{ slug: 'restart' }]), {}, modelsDir);
  try {
    assert.deepEqual(await installedIds(second.manager), []);
    const pending = await second.manager.resumePending();
    assert.deepEqual(pending.map((p) => p.id), ['restart-q8_0']);
    const done = await second.manager.waitForDownload('restart-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    const last = server.requestsFor(cdn).at(-1)!;
    assert.equal(last.range, `bytes=${leftBytes}-`);
    assert.equal(last.bytesSent, data.length - leftBytes);
    assert.ok(readFileSync(path.join(modelsDir, 'restart-q8_0.gguf')).equals(data));
    assert.deepEqual(await installedIds(second.manager), ['restart-q8_0']);
    assert.deepEqual(await downloadsDir(modelsDir), []);
  } finally {
    await second.cleanup();
  }
});

/** What an earlier run leaves in .downloads when it dies after the last byte. */
function leaveCompletePartial(modelsDir: string, slug: string, data: Buffer, expected: { bytes: number | null; sha256: string | null }): void {
  const dir = path.join(modelsDir, '.downloads');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${slug}-q8_0.gguf.partial`), data);
  writeFileSync(
    path.join(dir, `${slug}-q8_0.gguf.partial.json`),
    JSON.stringify({
      version: 1,
      id: `${slug}-q8_0`,
      file: `${slug}-q8_0.gguf`,
      url: `${server.origin}${RESOLVE}/${slug}-q8_0.gguf`,
      expectedBytes: expected.bytes,
      expectedSha256: expected.sha256,
      hashSource: expected.sha256 ? 'server' : null,
      etag: null,
      lastModified: null,
      status: 'queued',
      error: null,
      updatedAt: new Date().toISOString(),
    }),
  );
}

test('restart with a complete partial: verified and installed without downloading again', async () => {
  const data = modelBytes(100_000);
  const cdn = hfFile('whole', data, {});
  const modelsDir = tempDir();
  leaveCompletePartial(modelsDir, 'whole', data, { bytes: data.length, sha256: sha256(data) });
  const h = await makeManager(server, testCatalog([{ slug: 'whole' }]), {}, modelsDir);
  try {
    await h.manager.resumePending();
    const done = await h.manager.waitForDownload('whole-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.equal(server.requestsFor(cdn).length, 0, 'the size matched the server\'s: only the hash had to be checked');
    assert.deepEqual(await installedIds(h.manager), ['whole-q8_0']);
    assert.deepEqual(await downloadsDir(modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('416 to the resume range: the partial is complete, verified against the catalog hash, installed', async () => {
  const data = modelBytes(90_000);
  const route = `${RESOLVE}/r416-q8_0.gguf`;
  server.route(route, async (req, res) => {
    if (req.method === 'HEAD') {
      res.statusCode = 405; // a mirror without HEAD: size unknown until the GET
      res.end();
      return;
    }
    await serveBytes(req, res, data);
  });
  const modelsDir = tempDir();
  leaveCompletePartial(modelsDir, 'r416', data, { bytes: null, sha256: null });
  const h = await makeManager(server, testCatalog([{ slug: 'r416', sha256: sha256(data) }]), {}, modelsDir);
  try {
    await h.manager.resumePending();
    const done = await h.manager.waitForDownload('r416-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.equal(done.hashSource, 'catalog');
    const gets = server.requestsFor(route);
    assert.deepEqual(gets.map((g) => [g.range, g.status]), [[`bytes=${data.length}-`, 416]]);
    assert.deepEqual(await installedIds(h.manager), ['r416-q8_0']);
    assert.deepEqual(await downloadsDir(modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('resumed bytes that do not verify: one fresh download from zero, then installed', async () => {
  const data = modelBytes(120_000);
  const cdn = hfFile('garbage', data, {});
  const modelsDir = tempDir();
  const damaged = Buffer.from(data.subarray(0, 50_000));
  damaged[49_000] = (damaged[49_000] ?? 0) ^ 0x55; // what a crash can leave behind
  leaveCompletePartial(modelsDir, 'garbage', damaged, { bytes: data.length, sha256: sha256(data) });
  const h = await makeManager(server, testCatalog([{ slug: 'garbage' }]), {}, modelsDir);
  try {
    const rec = recordEvents(h.manager);
    await h.manager.resumePending();
    const done = await h.manager.waitForDownload('garbage-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.deepEqual(server.requestsFor(cdn).map((r) => r.range), ['bytes=50000-', undefined]);
    assert.ok(rec.warnings.some((w) => /did not verify/.test(w)));
    assert.ok(readFileSync(path.join(modelsDir, 'garbage-q8_0.gguf')).equals(data));
    assert.deepEqual(await installedIds(h.manager), ['garbage-q8_0']);
    assert.deepEqual(await downloadsDir(modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('stopped between the rename and the index: the next start adopts the verified file, validated, without downloading', async () => {
  const data = modelBytes(80_000);
  const cdn = hfFile('renamed', data, {});
  const modelsDir = tempDir();
  // What a crash right after the rename leaves: the final file, the state file, no partial.
  leaveCompletePartial(modelsDir, 'renamed', data, { bytes: data.length, sha256: sha256(data) });
  renameSync(path.join(modelsDir, '.downloads', 'renamed-q8_0.gguf.partial'), path.join(modelsDir, 'renamed-q8_0.gguf'));
  const validated: string[] = [];
  const validateModel = async (file: string): Promise<ValidatedModelInfo> => {
    validated.push(path.basename(file));
    return fakeValidate(file);
  };
  const crashed = await makeManager(server, testCatalog([{ slug: 'renamed' }]), { validateModel }, modelsDir);
  try {
    assert.deepEqual(await installedIds(crashed.manager), []);
    await crashed.manager.resumePending();
    const done = await crashed.manager.waitForDownload('renamed-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.equal(server.requestsFor(cdn).length, 0, 'nothing downloaded again');
    assert.deepEqual(validated, ['renamed-q8_0.gguf'], 'the engine validated the adopted file');
    assert.deepEqual(await installedIds(crashed.manager), ['renamed-q8_0']);
    assert.ok(readFileSync(path.join(modelsDir, 'renamed-q8_0.gguf')).equals(data));
    assert.deepEqual(await downloadsDir(modelsDir), []);
  } finally {
    await crashed.cleanup();
  }
});

test('the index write fails once after the rename: the next start adopts the file instead of downloading it again', async () => {
  const data = modelBytes(90_000);
  const cdn = hfFile('unlisted', data, {});
  const modelsDir = tempDir();
  const upsert = InstalledIndex.prototype.upsert;
  let failures = 1;
  InstalledIndex.prototype.upsert = function (this: InstalledIndex, model) {
    if (failures-- > 0) return Promise.reject(Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' }));
    return upsert.call(this, model);
  };
  try {
    const first = await makeManager(server, testCatalog([{ slug: 'unlisted' }]), {}, modelsDir);
    await first.manager.download('unlisted-q8_0');
    const failed = await first.manager.waitForDownload('unlisted-q8_0');
    assert.equal(failed.state, 'failed');
    assert.equal(failed.error?.code, 'IO_ERROR');
    await first.manager.dispose();
  } finally {
    InstalledIndex.prototype.upsert = upsert;
  }
  const downloads = server.requestsFor(cdn).length;
  assert.ok(readFileSync(path.join(modelsDir, 'unlisted-q8_0.gguf')).equals(data), 'the file was in place, unlisted');

  const second = await makeManager(server, testCatalog([{ slug: 'unlisted' }]), {}, modelsDir);
  try {
    await second.manager.resumePending();
    const done = await second.manager.waitForDownload('unlisted-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    assert.equal(server.requestsFor(cdn).length, downloads, 'not downloaded again');
    assert.deepEqual(await installedIds(second.manager), ['unlisted-q8_0']);
    assert.deepEqual(await downloadsDir(modelsDir), []);
  } finally {
    await second.cleanup();
  }
});

test('while a broken connection waits for its next attempt, the snapshot says it is retrying (attempt, when, why)', async () => {
  const data = modelBytes(300_000);
  hfFile('flaky', data, (nth) => (nth === 1 ? { cutAfter: 100_000 } : {}));
  const h = await makeManager(server, testCatalog([{ slug: 'flaky' }]));
  const events = recordEvents(h.manager);
  try {
    await h.manager.download('flaky-q8_0');
    const done = await h.manager.waitForDownload('flaky-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    const retrying = events.states.filter((s) => s.retrying);
    assert.ok(retrying.length >= 1, 'a snapshot said the download is retrying');
    assert.equal(retrying[0]!.state, 'downloading');
    assert.equal(retrying[0]!.retrying!.attempt, 2);
    assert.ok(retrying[0]!.retrying!.of >= 2);
    assert.ok(retrying[0]!.retrying!.reason.length > 0);
    assert.equal(events.states.at(-1)!.retrying ?? null, null, 'cleared once bytes flow again');
  } finally {
    await h.cleanup();
  }
});
