// A file the user opened is listed by reference (issue 44 item 1): active, kept across a reopen of the
// index, listed once however often it is opened, dropped when the file goes, and never deleted by removal.
import assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ModelManager } from '../../../app/main/models/index.js';
import { fakeValidate, installedIds, makeManager, modelBytes, tempDir, testCatalog } from './helpers.js';

let srcDir: string;
before(() => {
  srcDir = tempDir();
});
after(() => rmSync(srcDir, { recursive: true, force: true }));

test('an opened file is listed by its path, made active, survives a restart, and removing it keeps the file', async () => {
  const src = path.join(srcDir, 'my model.gguf');
  writeFileSync(src, modelBytes(5000));
  const h = await makeManager(null, testCatalog([{ slug: 'a' }]));
  try {
    const m = await h.manager.linkFile(src, await fakeValidate(src));
    assert.equal(m.id, 'linked/my-model');
    assert.deepEqual(m.source, { kind: 'linked', path: src });
    assert.equal(h.manager.modelPath(m.id), src);
    assert.equal(h.manager.getActive(), m.id);
    // Opening it again does not list it twice.
    assert.equal((await h.manager.linkFile(src, await fakeValidate(src))).id, m.id);
    assert.deepEqual(await installedIds(h.manager), [m.id]);

    const reopened = await ModelManager.create({ modelsDir: h.modelsDir, validateModel: fakeValidate, catalog: testCatalog([{ slug: 'a' }]) });
    assert.equal(reopened.getActive(), m.id);
    assert.equal(reopened.modelPath(m.id), src);

    assert.deepEqual(await reopened.remove(m.id), { removed: true, fileRemoved: false });
    assert.ok(existsSync(src), 'the user\'s file stays');
    assert.deepEqual(await installedIds(reopened), []);

    // A linked file that vanished leaves the list.
    await h.manager.linkFile(src, await fakeValidate(src));
    rmSync(src);
    assert.deepEqual(await installedIds(h.manager), []);
  } finally {
    await h.cleanup();
  }
});
