// Import of local .gguf files (validated by the engine before listing),
// management (active model, delete, pruning) and the first-run proposal.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { TestHttpsServer, hfRedirect, serveBytes, sha256 } from '../../support/https-server/server.js';
import { RESOLVE, downloadsDir, fakeValidate, installedIds, makeManager, modelBytes, tempDir, testCatalog } from './helpers.js';

let server: TestHttpsServer;
let srcDir: string;
before(async () => {
  server = await TestHttpsServer.start();
  srcDir = tempDir();
});
after(async () => {
  await server.close();
  rmSync(srcDir, { recursive: true, force: true });
});

test('import of a malformed file is refused from its header, without quoting it; nothing listed or left', async () => {
  const bad = path.join(srcDir, 'broken.gguf');
  writeFileSync(bad, Buffer.from('this is not a model at all'));
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]));
  try {
    await assert.rejects(h.manager.importFile(bad), (e: { code?: string; message?: string }) => {
      assert.equal(e.code, 'MODEL_INVALID');
      assert.match(e.message ?? '', /not a GGUF file: a GGUF model starts with "GGUF"/);
      assert.doesNotMatch(e.message ?? '', /this/, 'no byte of the file in the message');
      return true;
    });
    assert.deepEqual(await installedIds(h.manager), []);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
    assert.ok(!existsSync(path.join(h.modelsDir, 'imported', 'broken.gguf')));
    assert.ok(existsSync(bad), 'the user\'s file is untouched');
  } finally {
    await h.cleanup();
  }
});

test('a 10 GiB file that is not GGUF is refused from its header: no free-space check, copy, hash or engine run', async () => {
  const big = path.join(srcDir, 'movie.gguf');
  writeFileSync(big, 'root:x:0:0:root:/root:/bin/bash\n');
  truncateSync(big, 10 * 1024 ** 3); // sparse: nothing is written
  const wav = path.join(srcDir, 'voice.gguf');
  writeFileSync(wav, Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(64)]));
  const oldVersion = path.join(srcDir, 'v1.gguf');
  writeFileSync(oldVersion, Buffer.concat([Buffer.from('GGUF\x01\x00\x00\x00', 'latin1'), Buffer.alloc(64)]));
  const tiny = path.join(srcDir, 'tiny.gguf');
  writeFileSync(tiny, 'GGUF');
  // The checkpoints a Parakeet model comes in before conversion, named as such. (A `.nemo` is converted on
  // import now: its refusals are test/unit/models/nemo-hostile.test.ts's.)
  const onnx = path.join(srcDir, 'encoder.onnx');
  writeFileSync(onnx, Buffer.concat([Buffer.from([0x08, 0x07, 0x12, 0x04]), Buffer.alloc(64)]));
  const safetensors = path.join(srcDir, 'model.bin');
  writeFileSync(safetensors, Buffer.concat([Buffer.from([0x20, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('{"w":{"dtype":"F32","shape":[1]}}     '), Buffer.alloc(8)]));
  const touched: string[] = [];
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]), {
    freeSpace: async () => {
      touched.push('freeSpace');
      return 2 ** 50;
    },
    validateModel: async (file) => {
      touched.push('validate');
      return fakeValidate(file);
    },
  });
  try {
    for (const [file, message] of [[big, /not a GGUF file: a GGUF model/], [wav, /it looks like a RIFF file/], [oldVersion, /GGUF version 1 is not supported/],
      [tiny, /only 4 bytes/],
      [onnx, /it is an ONNX model: convert/], [safetensors, /it is a safetensors file: convert/]] as const) {
      const started = performance.now();
      await assert.rejects(h.manager.importFile(file), (e: { code?: string; message?: string }) => {
        assert.equal(e.code, 'MODEL_INVALID', e.message);
        assert.match(e.message ?? '', message);
        assert.doesNotMatch(e.message ?? '', /root|bash/, 'no byte of the file in the message');
        return true;
      });
      assert.ok(performance.now() - started < 2000, `${file}: refused at once`);
    }
    assert.deepEqual(touched, [], 'refused before any free-space check or validation');
    assert.deepEqual(await downloadsDir(h.modelsDir), [], 'nothing copied');
  } finally {
    await h.cleanup();
    rmSync(big, { force: true });
  }
});

test('a device, a FIFO and a /proc file are "not a regular file", never copied', { skip: process.platform !== 'linux' && 'Linux paths' }, async () => {
  const fifo = path.join(srcDir, 'fifo.gguf');
  execFileSync('mkfifo', [fifo]);
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]));
  try {
    for (const file of ['/dev/zero', fifo, '/proc/self/environ', srcDir]) {
      await assert.rejects(h.manager.importFile(file), (e: { code?: string; message?: string }) => {
        assert.equal(e.code, 'IO_ERROR', e.message);
        assert.match(e.message ?? '', /is not a regular file/);
        assert.doesNotMatch(e.message ?? '', /empty/);
        return true;
      });
    }
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('import of a good file: copied, validated, listed; the same bytes again are not duplicated', async () => {
  const data = modelBytes(70_000);
  const src = path.join(srcDir, 'My Model (q8).gguf');
  writeFileSync(src, data);
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]));
  try {
    let events = 0;
    h.manager.on('installed', () => (events += 1));
    const m = await h.manager.importFile(src);
    assert.equal(m.id, 'imported/My-Model-q8');
    assert.equal(m.file, 'imported/My-Model-q8.gguf');
    assert.equal(m.bytes, data.length);
    assert.equal(m.sha256, sha256(data));
    assert.deepEqual(m.source, { kind: 'imported', originalName: 'My Model (q8).gguf' });
    assert.equal(m.architecture, 'hybrid_tdt_ctc');
    assert.equal(m.license, null);
    assert.ok(readFileSync(path.join(h.modelsDir, m.file)).equals(data));
    assert.ok(readFileSync(h.manager.modelPath(m.id)).equals(data));
    assert.deepEqual(await installedIds(h.manager), ['imported/My-Model-q8']);
    assert.ok(events >= 1);

    const again = await h.manager.importFile(src);
    assert.equal(again.id, m.id);
    assert.deepEqual(await installedIds(h.manager), ['imported/My-Model-q8']);

    // different bytes under the same name get their own id
    writeFileSync(src, modelBytes(1000));
    const other = await h.manager.importFile(src);
    assert.equal(other.id, 'imported/My-Model-q8-2');
    assert.deepEqual(await installedIds(h.manager), ['imported/My-Model-q8', 'imported/My-Model-q8-2']);
    assert.deepEqual(await downloadsDir(h.modelsDir), []);
  } finally {
    await h.cleanup();
  }
});

test('two concurrent imports of files with the same name (or the same bytes) keep each file', async () => {
  const a = path.join(srcDir, 'same-a');
  const b = path.join(srcDir, 'same-b');
  mkdirSync(a, { recursive: true });
  mkdirSync(b, { recursive: true });
  const bytesA = modelBytes(50_000);
  const bytesB = modelBytes(60_000);
  writeFileSync(path.join(a, 'same.gguf'), bytesA);
  writeFileSync(path.join(b, 'same.gguf'), bytesB);
  writeFileSync(path.join(b, 'copy-of-a.gguf'), bytesA);
  // A validation that takes a while, like the engine's: both imports would pick their name at the same time.
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]), {
    validateModel: async (file) => {
      await new Promise((r) => setTimeout(r, 50));
      return fakeValidate(file);
    },
  });
  try {
    const [ma, mb, mc] = await Promise.all([
      h.manager.importFile(path.join(a, 'same.gguf')),
      h.manager.importFile(path.join(b, 'same.gguf')),
      h.manager.importFile(path.join(b, 'copy-of-a.gguf')),
    ]);
    assert.notEqual(ma.id, mb.id);
    assert.deepEqual([ma.id, mb.id].sort(), ['imported/same', 'imported/same-2']);
    assert.ok(readFileSync(path.join(h.modelsDir, ma.file)).equals(bytesA), 'the first file was not replaced by the second');
    assert.ok(readFileSync(path.join(h.modelsDir, mb.file)).equals(bytesB));
    assert.equal(mc.id, ma.id, 'identical bytes imported at the same time are listed once');
    assert.deepEqual(await installedIds(h.manager), ['imported/same', 'imported/same-2']);
  } finally {
    await h.cleanup();
  }
});

test('import: missing file and full disk are clear errors', async () => {
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]), { freeSpace: async () => 10 });
  try {
    await assert.rejects(h.manager.importFile(path.join(srcDir, 'nope.gguf')), { code: 'IO_ERROR', message: /does not exist/ });
    const src = path.join(srcDir, 'fits-not.gguf');
    writeFileSync(src, modelBytes(5000));
    await assert.rejects(h.manager.importFile(src), { code: 'DISK_FULL' });
    assert.deepEqual(await installedIds(h.manager), []);
  } finally {
    await h.cleanup();
  }
});

test('active model, delete (clears active), pruning of vanished files, persistence across restarts', async () => {
  const modelsDir = tempDir();
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]), {}, modelsDir);
  const one = path.join(srcDir, 'one.gguf');
  const two = path.join(srcDir, 'two.gguf');
  writeFileSync(one, modelBytes(3000));
  writeFileSync(two, modelBytes(4000));
  const m1 = await h.manager.importFile(one);
  const m2 = await h.manager.importFile(two);
  assert.equal(h.manager.getActive(), null);
  await assert.rejects(h.manager.setActive('imported/zzz'), { code: 'UNKNOWN_MODEL' });
  await h.manager.setActive(m1.id);
  assert.equal(h.manager.getActive(), m1.id);
  await h.manager.dispose();

  const h2 = await makeManager(null, testCatalog([{ slug: 'a' }]), {}, modelsDir);
  try {
    assert.equal(h2.manager.getActive(), m1.id, 'persisted in installed.json');
    const r = await h2.manager.remove(m1.id);
    assert.deepEqual(r, { removed: true, fileRemoved: true });
    assert.equal(h2.manager.getActive(), null);
    assert.ok(!existsSync(path.join(modelsDir, m1.file)));
    assert.deepEqual(await installedIds(h2.manager), [m2.id]);
    assert.deepEqual(await h2.manager.remove('imported/zzz'), { removed: false, fileRemoved: false });

    // a file deleted behind our back is no longer listed
    rmSync(path.join(modelsDir, m2.file));
    assert.deepEqual(await installedIds(h2.manager), []);
  } finally {
    await h2.cleanup();
  }
});

test('first run: both defaults with the server\'s size (HEAD), catalog estimate when offline', async () => {
  const en = modelBytes(12_345);
  const multi = modelBytes(23_456);
  server.route(`${RESOLVE}/en-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/en`, en));
  server.route('/cdn/en', (req, res) => serveBytes(req, res, en));
  server.route(`${RESOLVE}/multi-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/multi`, multi));
  server.route('/cdn/multi', (req, res) => serveBytes(req, res, multi));
  const catalog = testCatalog([
    { slug: 'en', approxBytes: 999, recommended: 'english-dictation' },
    { slug: 'multi', approxBytes: 888, recommended: 'multilingual' },
  ]);
  const online = await makeManager(server, catalog);
  try {
    const p = await online.manager.firstRunProposal();
    assert.equal(p.recommended, 'english-dictation');
    assert.deepEqual(
      p.choices.map((c) => [c.kind, c.catalogId, c.bytes, c.bytesSource, c.installed]),
      [
        ['english-dictation', 'en-q8_0', en.length, 'server', false],
        ['multilingual', 'multi-q8_0', multi.length, 'server', false],
      ],
    );
    assert.equal((await online.manager.firstRunProposal({ locale: 'de-DE' })).recommended, 'multilingual');
    assert.equal((await online.manager.firstRunProposal({ locale: 'ja-JP' })).recommended, 'english-dictation');
  } finally {
    await online.cleanup();
  }
  // offline: endpoint nobody listens on → catalog estimates
  const offline = await makeManager(null, catalog, { endpoint: 'https://127.0.0.1:1' });
  try {
    const p = await offline.manager.firstRunProposal({ timeoutMs: 1000 });
    assert.deepEqual(
      p.choices.map((c) => [c.bytes, c.bytesSource]),
      [
        [999, 'catalog-estimate'],
        [888, 'catalog-estimate'],
      ],
    );
  } finally {
    await offline.cleanup();
  }
});
